package loadgen

import (
	"fmt"
	"os"
	"strings"
)

// ResetPeakRSS resets a process's VmHWM to its current RSS (writing 5 to
// /proc/<pid>/clear_refs), so the next perfreport.Memory reading is the
// peak of what ran in between rather than of the process's whole life.
func ResetPeakRSS(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0o200)
}

// LoadAverage is the machine's 1-minute load average as /proc/loadavg
// gives it: how busy the shared machine was when a run began, recorded
// beside its figures.
func LoadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	if f := strings.Fields(string(data)); len(f) > 0 {
		return f[0]
	}
	return "unknown"
}
