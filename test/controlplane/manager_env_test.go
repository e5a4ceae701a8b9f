package controlplane

import (
	"regexp"
	"strings"
	"testing"
)

// goMemLimit is the syntax the Go runtime accepts for GOMEMLIMIT.
var goMemLimit = regexp.MustCompile(`^(off|[0-9]+(B|KiB|MiB|GiB|TiB)?)$`)

func TestManagerEnvFromManifest(t *testing.T) {
	env, err := ManagerEnv()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			t.Fatalf("ManagerEnv entry %q is not NAME=value", kv)
		}
		if _, dup := seen[name]; dup {
			t.Errorf("ManagerEnv sets %s twice", name)
		}
		seen[name] = value
	}
	limit, ok := seen["GOMEMLIMIT"]
	if !ok {
		t.Fatalf("config/manager/manager.yaml sets no GOMEMLIMIT for the manager container; got %v", env)
	}
	if !goMemLimit.MatchString(limit) {
		t.Errorf("GOMEMLIMIT=%q is not a value the Go runtime accepts", limit)
	}
}
