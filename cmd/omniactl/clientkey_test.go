package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/test/controlplane"
)

func mint(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{"client-key", "mint"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// lastLine is the token line of mint's stderr.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// wantClientKeySecret checks the spec's shape of a client key Secret and
// that keyHash is the raw SHA-256 of token.
func wantClientKeySecret(t *testing.T, s *corev1.Secret, ns, agent, id, uid, token string) {
	t.Helper()
	if s.Name != "agent-"+agent+"-clientkey-"+id || s.Namespace != ns {
		t.Errorf("name %s/%s", s.Namespace, s.Name)
	}
	if s.Labels["omnia.altairalabs.ai/credential-kind"] != "agent-client-key" || s.Labels["omnia.altairalabs.ai/agent"] != agent {
		t.Errorf("labels %v", s.Labels)
	}
	if refs := s.OwnerReferences; len(refs) != 1 || string(refs[0].UID) != uid || refs[0].Kind != "AgentRuntime" ||
		refs[0].Name != agent || refs[0].APIVersion != v1alpha1.GroupVersion.String() {
		t.Errorf("owner references %+v", s.OwnerReferences)
	}
	sum := sha256.Sum256([]byte(token))
	if h := s.Data["keyHash"]; len(h) != 32 || !bytes.Equal(h, sum[:]) {
		t.Errorf("keyHash = %x (%d bytes), want the raw SHA-256 of the printed token %x", h, len(h), sum)
	}
	if len(token) < 43 {
		t.Errorf("token %q is shorter than 32 random bytes", token)
	}
}

func TestClientKeyMint(t *testing.T) {
	expires := time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)
	code, out, errOut := mint(t, "--agent", "support", "--namespace", "team-a", "--agent-uid", "uid-1", "--id", "alice",
		"--scopes", `{"role": "editor", "tier":"gold"}`, "--expires-at", expires)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s corev1.Secret
	if err := yaml.UnmarshalStrict([]byte(out), &s); err != nil {
		t.Fatalf("stdout is not a Secret: %v\n%s", err, out)
	}
	token := lastLine(errOut)
	wantClientKeySecret(t, &s, "team-a", "support", "alice", "uid-1", token)
	if s.Kind != "Secret" || s.APIVersion != "v1" || s.Type != corev1.SecretTypeOpaque {
		t.Errorf("type meta %+v, type %s", s.TypeMeta, s.Type)
	}
	if string(s.Data["scopes"]) != `{"role":"editor","tier":"gold"}` || string(s.Data["expiresAt"]) != expires {
		t.Errorf("scopes %q expiresAt %q", s.Data["scopes"], s.Data["expiresAt"])
	}
	if strings.Contains(out, token) {
		t.Error("the token is in the Secret")
	}

	// Two mints: two tokens, and a random id by default.
	_, out2, errOut2 := mint(t, "--agent", "support", "--namespace", "team-a", "--agent-uid", "uid-1")
	var s2 corev1.Secret
	if err := yaml.Unmarshal([]byte(out2), &s2); err != nil {
		t.Fatal(err)
	}
	if lastLine(errOut2) == token || !strings.HasPrefix(s2.Name, "agent-support-clientkey-") || len(s2.Name) != len("agent-support-clientkey-")+8 {
		t.Errorf("second mint: %s, token reused: %v", s2.Name, lastLine(errOut2) == token)
	}
	if _, ok := s2.Data["scopes"]; ok {
		t.Error("scopes without --scopes")
	}

	// --token-file: the token goes there (0600), not to stderr.
	tf := filepath.Join(t.TempDir(), "token")
	code, out, errOut = mint(t, "--agent", "support", "-n", "team-a", "--agent-uid", "uid-1", "--id", "bob", "--token-file", tf, "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(tf)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(tf); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v", fi.Mode().Perm())
	}
	token = strings.TrimSpace(string(b))
	if strings.Contains(errOut, token) {
		t.Error("the token is on stderr with --token-file")
	}
	if err := yaml.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	wantClientKeySecret(t, &s, "team-a", "support", "bob", "uid-1", token)
	// An existing token file is never overwritten.
	if code, _, errOut := mint(t, "--agent", "support", "-n", "team-a", "--agent-uid", "uid-1", "--token-file", tf); code != exitInput || !strings.Contains(errOut, "--token-file") {
		t.Errorf("existing --token-file: exit %d, %s", code, errOut)
	}
}

func TestClientKeyMintRefusals(t *testing.T) {
	base := []string{"--agent", "support", "--namespace", "team-a", "--agent-uid", "uid-1"}
	for _, tc := range []struct {
		name string
		args []string
		flag string
	}{
		{name: "scopes not JSON", args: append(base, "--scopes", "role=editor"), flag: "--scopes"},
		{name: "scopes not a string map", args: append(base, "--scopes", `{"n":1}`), flag: "--scopes"},
		{name: "scopes an array", args: append(base, "--scopes", `["a"]`), flag: "--scopes"},
		{name: "scopes null", args: append(base, "--scopes", `null`), flag: "--scopes"},
		{name: "expires-at not RFC 3339", args: append(base, "--expires-at", "tomorrow"), flag: "--expires-at"},
		{name: "expires-at a date only", args: append(base, "--expires-at", "2030-01-01"), flag: "--expires-at"},
		{name: "expires-at in the past", args: append(base, "--expires-at", "2020-01-01T00:00:00Z"), flag: "--expires-at"},
		{name: "no agent", args: []string{"--namespace", "team-a", "--agent-uid", "u"}, flag: "--agent"},
		{name: "no namespace", args: []string{"--agent", "a", "--agent-uid", "u"}, flag: "--namespace"},
		{name: "bad id", args: append(base, "--id", "Not_Valid"), flag: "--id"},
		{name: "bad output", args: append(base, "-o", "xml"), flag: "-o"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := mint(t, tc.args...)
			if code != exitInput || !strings.Contains(errOut, tc.flag) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 naming %s and no Secret", code, out, errOut, tc.flag)
			}
		})
	}
}

// TestClientKeyMintCluster: with a kubeconfig the agent's UID is looked up
// and --create writes the Secret in the cluster.
func TestClientKeyMintCluster(t *testing.T) {
	env, err := controlplane.Start(controlplane.Options{Kinds: []string{"AgentRuntime"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	kubeconfig, err := controlplane.AdminKubeconfig(env, "omniactl-client-key")
	if err != nil {
		t.Fatal(err)
	}
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kc, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := clientKeyClient(kc, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-k"}}); err != nil {
		t.Fatal(err)
	}
	ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Name: "support", Namespace: "team-k"},
		Spec: v1alpha1.AgentRuntimeSpec{PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: "p"},
			Providers: v1alpha1.AgentRuntimeProviders{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "claude"}}},
			Facades:   []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}}}}
	if err := c.Create(ctx, ar); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := mint(t, "--agent", "support", "--namespace", "team-k", "--kubeconfig", kc, "--id", "carol", "--create")
	if code != exitOK || !strings.Contains(out, "agent-support-clientkey-carol created") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	s := &corev1.Secret{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "team-k", Name: "agent-support-clientkey-carol"}, s); err != nil {
		t.Fatal(err)
	}
	wantClientKeySecret(t, s, "team-k", "support", "carol", string(ar.UID), lastLine(errOut))

	// An agent that does not exist: no UID, nothing written.
	if code, out, errOut := mint(t, "--agent", "nobody", "--namespace", "team-k", "--kubeconfig", kc); code != exitInput || out != "" ||
		!strings.Contains(errOut, "nobody") {
		t.Errorf("missing agent: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
