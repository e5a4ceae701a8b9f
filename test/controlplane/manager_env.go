package controlplane

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// managerContainer is the operator's container in config/manager/manager.yaml.
const managerContainer = "manager"

// ManagerEnv returns the environment config/manager/manager.yaml gives the
// operator's container, as NAME=value: the variables with a literal value
// (a valueFrom needs a kubelet and is left out). The operator the tests and
// `make run` start gets them, so it runs with the settings it is deployed
// with (GOMEMLIMIT, the Go runtime's soft memory limit, among them) and a
// scale run measures the deployed operator.
func ManagerEnv() ([]string, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(root, "config", "manager", "manager.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		return nil, fmt.Errorf("controlplane: %s: %w", path, err)
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name != managerContainer {
			continue
		}
		var env []string
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				env = append(env, e.Name+"="+e.Value)
			}
		}
		return env, nil
	}
	return nil, fmt.Errorf("controlplane: %s has no container %q", path, managerContainer)
}

// Environ returns the operator process's environment (/proc/<pid>/environ),
// so a test can check it runs with the manifest's (ManagerEnv).
func (op *Operator) Environ() ([]string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", op.Pid()))
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimRight(string(data), "\x00"), "\x00"), nil
}
