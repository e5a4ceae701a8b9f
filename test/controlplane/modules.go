package controlplane

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
)

// ModuleDir returns where the Go module cache holds module at the version
// the scratch module hack/controlplane/<scratch> requires (go.sum verifies
// it), downloading it through the Go module proxy if needed. Files the local
// cluster needs from another project (kwok's stage files, KEDA's CRDs) are
// read from there, never copied into this repository.
func ModuleDir(scratch, module string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Dir = filepath.Join(root, "hack", "controlplane", scratch)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct {
		Dir, Version, Error string
	}
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return "", fmt.Errorf("controlplane: downloading %s (hack/controlplane/%s): %s", module, scratch, info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("controlplane: downloading %s (hack/controlplane/%s): %v: %s", module, scratch, err, stderr.String())
	}
	if info.Dir == "" {
		return "", fmt.Errorf("controlplane: go mod download gave no directory for %s", module)
	}
	return info.Dir, nil
}
