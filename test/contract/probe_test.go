package contract

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// The runtime role's own cases: the probe run as a process on a root laid
// out by hand (the cluster test lays it out from a real Pod).

func fakeJWT(aud string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"none"}`)) + "." + enc([]byte(`{"aud":["`+aud+`"],"sub":"x"}`)) + ".sig"
}

const goodTools = `registry: {name: tools, namespace: ns, generation: 1}
handlers:
- name: crm
  type: http
  auth: {type: bearer, credentialFile: /etc/omnia/tool-secrets/crm.auth}
  headersFromFiles: {X-Api-Key: /etc/omnia/tool-secrets/crm.header.X-Api-Key}
- name: inventory
  type: http
  auth: {type: serviceAccount, tokenFile: /var/run/secrets/omnia/tool-tokens/inventory.token, audience: inventory.tools}
`

func runtimeLayout() map[string]string {
	return map[string]string{
		"/etc/omnia/pack/pack.json":                          `{"id":"p"}`,
		"/etc/omnia/tools/tools.yaml":                        goodTools,
		"/etc/omnia/tool-secrets/crm.auth":                   "tok-123",
		"/etc/omnia/tool-secrets/crm.header.X-Api-Key":       "key-456",
		"/var/run/secrets/omnia/tool-tokens/inventory.token": fakeJWT("inventory.tools"),
		"/etc/omnia/a2a-tokens/0.token":                      "a2a-tok",
	}
}

func runtimeEnv() map[string]string {
	return map[string]string{
		workload.EnvPromptPackPath:       "/etc/omnia/pack/pack.json",
		workload.EnvToolsConfigPath:      "/etc/omnia/tools/tools.yaml",
		workload.EnvProviders:            "default",
		"OMNIA_PROVIDER_DEFAULT_TYPE":    "claude",
		"OMNIA_PROVIDER_DEFAULT_SPEC":    `{"type":"claude","credential":{"secretRef":{"name":"s","key":"k"}}}`,
		"OMNIA_PROVIDER_DEFAULT_API_KEY": "sk-1",
		workload.EnvA2AClients:           `[{"name":"billing","url":"http://billing.ns.svc:9999","tokenFile":"/etc/omnia/a2a-tokens/0.token"}]`,
	}
}

func TestProbeRuntime(t *testing.T) {
	probe := BuildProbe(t)
	cases := []struct {
		name   string
		files  func(map[string]string)
		env    func(map[string]string)
		kind   string // the problem expected; "" for a pass
		handle string
	}{
		{name: "accepted"},
		{name: "credential file absent", files: func(f map[string]string) { delete(f, "/etc/omnia/tool-secrets/crm.auth") }, kind: "credential-missing", handle: "crm"},
		{name: "credential file empty", files: func(f map[string]string) { f["/etc/omnia/tool-secrets/crm.auth"] = "\n" }, kind: "credential-missing", handle: "crm"},
		{name: "header file absent", files: func(f map[string]string) { delete(f, "/etc/omnia/tool-secrets/crm.header.X-Api-Key") }, kind: "header-missing", handle: "crm"},
		{name: "credential in the tools file", files: func(f map[string]string) { f["/etc/omnia/tools/tools.yaml"] = goodTools + "# tok-123\n" }, kind: "credential-in-configmap"},
		{name: "token for another audience", files: func(f map[string]string) {
			f["/var/run/secrets/omnia/tool-tokens/inventory.token"] = fakeJWT("https://kubernetes.default.svc")
		}, kind: "token-audience", handle: "inventory"},
		{name: "token absent", files: func(f map[string]string) { delete(f, "/var/run/secrets/omnia/tool-tokens/inventory.token") }, kind: "token-missing", handle: "inventory"},
		{name: "token not a JWT", files: func(f map[string]string) { f["/var/run/secrets/omnia/tool-tokens/inventory.token"] = "opaque" }, kind: "token-invalid", handle: "inventory"},
		{name: "A2A client token absent", files: func(f map[string]string) { delete(f, "/etc/omnia/a2a-tokens/0.token") }, kind: "a2a-token-missing", handle: "billing"},
		{name: "pack not JSON", files: func(f map[string]string) { f["/etc/omnia/pack/pack.json"] = "{" }, kind: "pack-invalid"},
		{name: "pack absent", files: func(f map[string]string) { delete(f, "/etc/omnia/pack/pack.json") }, kind: "pack-unreadable"},
		{name: "tools file not a ToolsFile", files: func(f map[string]string) { f["/etc/omnia/tools/tools.yaml"] = "handlers: 3\n" }, kind: "tools-invalid"},
		{name: "Kubernetes token in the runtime", files: func(f map[string]string) { f[ServiceAccountMountPath+"/token"] = fakeJWT("api") }, kind: "sa-token-mounted"},
		{name: "provider credential empty", env: func(e map[string]string) { delete(e, "OMNIA_PROVIDER_DEFAULT_API_KEY") }, kind: "provider-credential-missing", handle: "default"},
		{name: "provider spec missing", env: func(e map[string]string) { delete(e, "OMNIA_PROVIDER_DEFAULT_SPEC") }, kind: "provider-spec-invalid", handle: "default"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files, env := runtimeLayout(), runtimeEnv()
			if tc.files != nil {
				tc.files(files)
			}
			if tc.env != nil {
				tc.env(env)
			}
			r := &Resolved{Root: t.TempDir()}
			for p, content := range files {
				if err := writeFile(r.HostPath(p), []byte(content)); err != nil {
					t.Fatal(err)
				}
			}
			r.Env = append(r.Env, EnvRoot+"="+r.Root)
			for k, v := range env {
				r.Env = append(r.Env, k+"="+v)
			}
			stdout, stderr, err := Run(context.Background(), probe, r, "-role", "runtime")
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatalf("%v: %s", err, stderr)
			}
			rep, perr := ParseReport(stdout)
			if perr != nil {
				t.Fatal(perr)
			}
			if tc.kind == "" {
				if err != nil || len(rep.Problems) > 0 {
					t.Fatalf("exit %v, problems %+v; want a pass", err, rep.Problems)
				}
				for _, k := range []string{"pack", "tools-file", "credential-file", "header-file", "tool-token", "provider-credential"} {
					if !hasRead(rep, k, "", "") {
						t.Errorf("the report does not list a %s read: %+v", k, rep.Read)
					}
				}
				return
			}
			if exit == nil || exit.ExitCode() != 1 {
				t.Fatalf("exit %v, want 1 (problems %+v)", err, rep.Problems)
			}
			if !slices.ContainsFunc(rep.Problems, func(p Problem) bool { return p.Kind == tc.kind && (tc.handle == "" || p.Handler == tc.handle) }) {
				t.Errorf("problems %+v, want %s for %q", rep.Problems, tc.kind, tc.handle)
			}
			for _, v := range []string{"tok-123", "key-456", "sk-1"} {
				if slices.ContainsFunc(rep.Problems, func(p Problem) bool { return strings.Contains(p.Detail, v) }) {
					t.Errorf("a problem names the value %q", v)
				}
			}
		})
	}
}

// TestProbeFacadeWithoutToken: a facade with no mounted token is a
// problem, not a fallback to other credentials.
func TestProbeFacadeWithoutToken(t *testing.T) {
	probe := BuildProbe(t)
	r := &Resolved{Root: t.TempDir()}
	r.Env = []string{EnvRoot + "=" + r.Root, EnvAPIServer + "=https://127.0.0.1:1", workload.EnvAgentName + "=a", workload.EnvAgentNamespace + "=ns"}
	stdout, _, err := Run(context.Background(), probe, r, "-role", "facade")
	rep, perr := ParseReport(stdout)
	if perr != nil {
		t.Fatal(perr)
	}
	if err == nil || !slices.ContainsFunc(rep.Problems, func(p Problem) bool { return p.Kind == "sa-token-missing" }) {
		t.Fatalf("exit %v, problems %+v; want sa-token-missing", err, rep.Problems)
	}
}

// TestProbeRefusesAnUnknownRole: exit 2, no report.
func TestProbeRefusesAnUnknownRole(t *testing.T) {
	probe := BuildProbe(t)
	r := &Resolved{Root: t.TempDir(), Env: []string{EnvRoot + "=" + os.TempDir()}}
	_, _, err := Run(context.Background(), probe, r, "-role", "broker")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("err = %v, want exit 2", err)
	}
}
