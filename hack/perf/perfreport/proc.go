package perfreport

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's CPU times. It is
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// Memory reads VmHWM (peak resident set size) and VmRSS of a process from
// /proc/<pid>/status, in KiB.
func Memory(pid int) (peakKiB, rssKiB int64, err error) {
	v, err := statusKiB(pid, "VmHWM", "VmRSS")
	if err != nil {
		return 0, 0, err
	}
	return v[0], v[1], nil
}

// Resident splits a process's resident set now (VmRSS) into its anonymous
// pages (RssAnon: for a Go program, what its runtime manages and
// GOMEMLIMIT bounds) and its file pages (RssFile: mostly the binary's
// text and tables), in KiB.
func Resident(pid int) (anonKiB, fileKiB int64, err error) {
	v, err := statusKiB(pid, "RssAnon", "RssFile")
	if err != nil {
		return 0, 0, err
	}
	return v[0], v[1], nil
}

// statusKiB reads the named "<name>: <n> kB" fields of /proc/<pid>/status,
// in the order given; a field that is missing is an error.
func statusKiB(pid int, names ...string) ([]int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	values := make([]int64, len(names))
	found := make([]bool, len(names))
	for _, line := range strings.Split(string(data), "\n") {
		name, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		i := slices.Index(names, name)
		f := strings.Fields(val) // "123456 kB"
		if i < 0 || len(f) == 0 {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("/proc/%d/status %s: %w", pid, name, err)
		}
		values[i], found[i] = n, true
	}
	for i, ok := range found {
		if !ok {
			return nil, fmt.Errorf("/proc/%d/status has no %s", pid, names[i])
		}
	}
	return values, nil
}

// CPUSeconds is the user plus system CPU time a process has used so far
// (/proc/<pid>/stat fields 14 and 15). The difference of two readings over
// a wall-clock interval is the process's CPU use in cores.
func CPUSeconds(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count fields after its closing parenthesis.
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[end+1:])
	// f[0] is field 3 (state): utime is field 14 = f[11], stime f[12].
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	var ticks float64
	for _, i := range []int{11, 12} {
		n, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat field %d: %w", pid, i+3, err)
		}
		ticks += n
	}
	return ticks / clockTicks, nil
}

// LoadAverage is the machine's 1-, 5- and 15-minute load averages as
// /proc/loadavg gives them ("0.44 2.32 3.43"), or "" where it cannot be read.
// A section states it so a reader can tell a quiet run from a contended one.
func LoadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	fields := strings.Fields(string(data))
	if len(fields) < 3 {
		return ""
	}
	return strings.Join(fields[:3], " ")
}
