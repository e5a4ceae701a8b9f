package main

import (
	"slices"
	"testing"
)

// TestCheckArenaProjectGitURL: omniactl check refuses an ArenaProject whose
// git URL names the metadata service with the rule the webhook and the
// ArenaProject controller use (arenaproject/git-url), and admits an https
// one (its licence gate, a reconcile-stage rule, is reported under the
// open-core licence either way).
func TestCheckArenaProjectGitURL(t *testing.T) {
	project := func(name, url string) string {
		return `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: ArenaProject
metadata: {name: ` + name + `, namespace: arena}
spec:
  git: {url: "` + url + `"}
`
	}
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.yaml", project("evals", "https://169.254.169.254/repo.git"))
	code, out, errOut := omniactl(t, "", "check", "-f", bad, "-o", "json")
	if code != exitDenied {
		t.Fatalf("exit %d, want %d; stderr: %s", code, exitDenied, errOut)
	}
	if got := keyed(findingsJSON(t, out)); !slices.Contains(got, "evals arenaproject/git-url spec.git.url") {
		t.Errorf("findings %v lack arenaproject/git-url at spec.git.url", got)
	}
	good := writeFile(t, dir, "good.yaml", project("evals", "https://github.com/acme/evals.git"))
	_, out, _ = omniactl(t, "", "check", "-f", good, "-o", "json")
	for _, f := range findingsJSON(t, out) {
		if f.RuleID == "arenaproject/git-url" {
			t.Errorf("an https URL was refused: %+v", f)
		}
	}
}
