package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Deploy intents in check's input are decoded and judged as the deploy API
// does: a rule the API answers 400 with (deployintent/idle-timeout-positive
// at agents[0].idleTimeout, as test/e2e/deployapi asserts through the
// operator) is the same rule and field here; an unknown key is unusable
// input naming it; a good intent passes beside the manifests.
func TestCheckDeployIntents(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"apiVersion":"deploy.omnia.altairalabs.ai/v1","pack":{"name":"p","version":"v1.0.0","content":"{}"},"agents":[{"name":"a","idleTimeout":"30m","providers":[{"name":"default","ref":"claude"}]}]}`)
	bad := write("bad.yaml", "apiVersion: deploy.omnia.altairalabs.ai/v1\npack: {name: p, content: '{}'}\nagents:\n- name: a\n  idleTimeout: -5m\n  providers: [{name: default, ref: claude}]\n")
	unknown := write("unknown.json", `{"apiVersion":"deploy.omnia.altairalabs.ai/v1","pack":{"name":"p","colour":"red"},"agents":[]}`)

	for _, tc := range []struct {
		name     string
		file     string
		want     int
		wantText []string
	}{
		{"a good intent passes", good, exitOK, []string{"1 Omnia document(s) checked", "0 denied"}},
		{"a rule the API answers 400 with", bad, exitDenied, []string{"deployintent/idle-timeout-positive", "agents[0].idleTimeout"}},
		{"an unknown key is unusable input naming it", unknown, exitInput, []string{"pack.colour", "unknown field"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), []string{"check", "-f", tc.file}, nil, &out, &errOut)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.want, out.String(), errOut.String())
			}
			for _, w := range tc.wantText {
				if !strings.Contains(out.String()+errOut.String(), w) {
					t.Errorf("output lacks %q:\n%s%s", w, out.String(), errOut.String())
				}
			}
		})
	}
}
