// Command probe is the contract probe: started by test/contract's Run with
// one container's resolved environment and files, it reads what the
// operator promises that container (the role's contract, in the env names
// of reconcile/agentruntime/workload) and prints one JSON report:
//
//	{"role": ..., "read": [...], "problems": [...]}
//
// It exits 1 when there are problems, 2 when it cannot run at all. Every
// absolute path it reads is mapped under $CONTRACT_ROOT. It never prints a
// credential's value.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// Env the harness sets (test/contract).
const (
	envRoot      = "CONTRACT_ROOT"
	envAPIServer = "CONTRACT_API_SERVER"
	envCA        = "CONTRACT_CA"
)

type read struct {
	Kind    string `json:"kind"`
	Path    string `json:"path,omitempty"`
	Handler string `json:"handler,omitempty"`
}

type problem struct {
	Kind    string `json:"kind"`
	Handler string `json:"handler,omitempty"`
	Path    string `json:"path,omitempty"`
	Detail  string `json:"detail"`
}

type report struct {
	Role     string    `json:"role"`
	Read     []read    `json:"read"`
	Problems []problem `json:"problems"`
}

// probe is one run: the container root and the report being built.
type probe struct {
	root string
	rep  report
}

func (p *probe) read(kind, path, handler string) {
	p.rep.Read = append(p.rep.Read, read{Kind: kind, Path: path, Handler: handler})
}

func (p *probe) problem(kind, handler, path, format string, args ...any) {
	p.rep.Problems = append(p.rep.Problems, problem{Kind: kind, Handler: handler, Path: path, Detail: fmt.Sprintf(format, args...)})
}

// host maps a container path under the root.
func (p *probe) host(containerPath string) string {
	return filepath.Join(p.root, filepath.FromSlash(containerPath))
}

// readFile reads a container path.
func (p *probe) readFile(containerPath string) ([]byte, error) {
	return os.ReadFile(p.host(containerPath))
}

func main() {
	role := flag.String("role", "", "runtime or facade")
	flag.Parse()
	root := os.Getenv(envRoot)
	if root == "" {
		fmt.Fprintln(os.Stderr, "probe: "+envRoot+" is not set")
		os.Exit(2)
	}
	p := &probe{root: root, rep: report{Role: *role, Read: []read{}, Problems: []problem{}}}
	switch *role {
	case "runtime":
		p.runtime()
	case "facade":
		p.facade()
	default:
		fmt.Fprintf(os.Stderr, "probe: -role must be runtime or facade, not %q\n", *role)
		os.Exit(2)
	}
	out, err := json.Marshal(p.rep)
	if err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		os.Exit(2)
	}
	fmt.Println(string(out))
	if len(p.rep.Problems) > 0 {
		os.Exit(1)
	}
}
