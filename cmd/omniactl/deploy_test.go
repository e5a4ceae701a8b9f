package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/altairalabs/omnia/deploy/intent"
)

// deployServer is a local TLS server standing in for the operator's deploy
// API in the client's own tests: it records what the client sent and
// answers with the status and body the case sets. (The deploy API itself is
// tested against the real cluster in its own package.)
type deployServer struct {
	*httptest.Server
	mu       sync.Mutex
	path     string
	auth     string
	body     []byte
	status   int
	response any
}

func startDeployServer(t *testing.T) *deployServer {
	t.Helper()
	s := &deployServer{}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.path, s.auth, s.body = r.URL.Path, r.Header.Get("Authorization"), b
		status, resp := s.status, s.response
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(s.Close)
	return s
}

// files writes the CA, the token and the documents the client reads.
func deployFiles(t *testing.T, s *deployServer) (ca, token, intentFile, arenaFile string) {
	t.Helper()
	dir := t.TempDir()
	ca = filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	token = filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("tok-not-a-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	intentFile = filepath.Join(dir, "intent.json")
	if err := os.WriteFile(intentFile, []byte(`{"apiVersion":"deploy.omnia.altairalabs.ai/v1","pack":{"name":"p","version":"v1.0.0","content":"{}"},"agents":[{"name":"a","providers":[{"name":"default","ref":"claude"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	arenaFile = filepath.Join(dir, "config.arena.yaml")
	if err := os.WriteFile(arenaFile, []byte("spec:\n  deploy:\n    provider: omnia\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return ca, token, intentFile, arenaFile
}

func TestDeployApplyExitCodes(t *testing.T) {
	s := startDeployServer(t)
	ca, token, intentFile, _ := deployFiles(t, s)
	ok := intent.DeployResult{Succeeded: true, Results: []intent.ResourceResult{{Kind: "PromptPack", Name: "p", Action: intent.ActionCreated}}}
	partial := intent.DeployResult{Succeeded: false, Results: []intent.ResourceResult{{Kind: "AgentRuntime", Name: "a", Action: intent.ActionFailed, Error: "refused"}}}
	for _, tc := range []struct {
		name     string
		status   int
		response any
		want     int
		wantOut  string
	}{
		{"200 applied", http.StatusOK, ok, exitOK, "PromptPack  p     created"},
		{"207 partial", http.StatusMultiStatus, partial, exitDenied, "failed"},
		{"409 conflict with results", http.StatusConflict, partial, exitDenied, "AgentRuntime"},
		{"403 refused", http.StatusForbidden, map[string]string{"error": "forbidden"}, exitDenied, ""},
		{"400 unusable", http.StatusBadRequest, map[string]string{"error": "agents[0].gpu: unknown field"}, exitInput, ""},
		{"400 with findings", http.StatusBadRequest, intent.ErrorResponse{Error: "the intent breaks 1 rule",
			Findings: []intent.ErrorFinding{{RuleID: "deployintent/idle-timeout-positive", Field: "agents[0].idleTimeout", Message: "not positive"}}}, exitInput, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.mu.Lock()
			s.status, s.response = tc.status, tc.response
			s.mu.Unlock()
			var out, errOut bytes.Buffer
			code := run(context.Background(), []string{"deploy", "apply", "-f", intentFile, "--server", s.URL, "--workspace", "acme",
				"--token-file", token, "--ca-file", ca}, nil, &out, &errOut)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.want, out.String(), errOut.String())
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Errorf("stdout %q lacks %q", out.String(), tc.wantOut)
			}
			if tc.want != exitOK && errOut.Len() == 0 && tc.status != http.StatusMultiStatus {
				t.Error("a refusal printed nothing on stderr")
			}
			if f, ok := tc.response.(intent.ErrorResponse); ok && !strings.Contains(errOut.String(), "["+f.Findings[0].RuleID+"] "+f.Findings[0].Field) {
				t.Errorf("stderr %q does not name the rule and field", errOut.String())
			}
			if strings.Contains(out.String()+errOut.String(), "tok-not-a-secret") {
				t.Error("the token was printed")
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.path != "/api/v1/workspaces/acme/deployments" || s.auth != "Bearer tok-not-a-secret" {
				t.Errorf("request: path %q, authorization %q", s.path, s.auth)
			}
		})
	}
}

func TestDeployPlan(t *testing.T) {
	s := startDeployServer(t)
	ca, token, _, arenaFile := deployFiles(t, s)
	clean := intent.PlanResponse{Providers: []intent.PlanProvider{{Name: "default", Ref: "claude", Role: "llm", Resolved: true}},
		ToolRegistry: intent.PlanToolRegistry{Mode: "none", Resolved: true}, Skills: []intent.PlanSkill{}, Diagnostics: []intent.Diagnostic{}}
	withDiag := clean
	withDiag.Diagnostics = []intent.Diagnostic{{Code: "provider_not_found", Path: "deploy.config.providers[0].ref", Message: "no Provider claude", Remediation: "create it"}}
	for _, tc := range []struct {
		name     string
		response intent.PlanResponse
		want     int
	}{
		{"no diagnostic", clean, exitOK},
		{"diagnostics", withDiag, exitDenied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.mu.Lock()
			s.status, s.response = http.StatusOK, tc.response
			s.mu.Unlock()
			var out, errOut bytes.Buffer
			code := run(context.Background(), []string{"deploy", "plan", "-f", arenaFile, "--server", s.URL, "--workspace", "acme",
				"--token-file", token, "--ca-file", ca, "-o", "json"}, nil, &out, &errOut)
			if code != tc.want {
				t.Fatalf("exit %d, want %d (stderr %s)", code, tc.want, errOut.String())
			}
			var got intent.PlanResponse
			if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got.Diagnostics) != len(tc.response.Diagnostics) {
				t.Errorf("json output %s: %v", out.String(), err)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			var sent intent.PlanRequest
			if err := json.Unmarshal(s.body, &sent); err != nil || !strings.Contains(sent.ArenaConfig, "provider: omnia") || s.path != "/api/v1/workspaces/acme/deploy/plan" {
				t.Errorf("sent %s to %s: the arena file should go as arenaConfig", s.body, s.path)
			}
		})
	}
}

// Unusable input never reaches the server and exits 2.
func TestDeployUnusableInput(t *testing.T) {
	s := startDeployServer(t)
	ca, token, intentFile, _ := deployFiles(t, s)
	notJSON := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(notJSON, []byte("pack: {"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"no subcommand":   {"deploy"},
		"plain http":      {"deploy", "apply", "-f", intentFile, "--server", "http://127.0.0.1:1", "--workspace", "acme", "--token-file", token},
		"no workspace":    {"deploy", "apply", "-f", intentFile, "--server", s.URL, "--token-file", token, "--ca-file", ca},
		"missing file":    {"deploy", "apply", "-f", "/nonexistent.json", "--server", s.URL, "--workspace", "acme", "--token-file", token},
		"not JSON":        {"deploy", "apply", "-f", notJSON, "--server", s.URL, "--workspace", "acme", "--token-file", token, "--ca-file", ca},
		"no plan input":   {"deploy", "plan", "--server", s.URL, "--workspace", "acme", "--token-file", token},
		"unknown output":  {"deploy", "apply", "-f", intentFile, "--server", s.URL, "--workspace", "acme", "--token-file", token, "-o", "yaml"},
		"empty tokenfile": {"deploy", "apply", "-f", intentFile, "--server", s.URL, "--workspace", "acme", "--token-file", notJSON + ".none"},
	} {
		t.Run(name, func(t *testing.T) {
			s.mu.Lock()
			s.path = ""
			s.mu.Unlock()
			var out, errOut bytes.Buffer
			if code := run(context.Background(), args, nil, &out, &errOut); code != exitInput {
				t.Errorf("exit %d, want %d (stderr %s)", code, exitInput, errOut.String())
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.path != "" {
				t.Errorf("the server was called (%s)", s.path)
			}
		})
	}
}

// The server's certificate is verified: without its CA the request fails
// (exit 1), and nothing reaches it.
func TestDeployVerifiesTheServer(t *testing.T) {
	s := startDeployServer(t)
	_, token, intentFile, _ := deployFiles(t, s)
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"deploy", "apply", "-f", intentFile, "--server", s.URL, "--workspace", "acme", "--token-file", token}, nil, &out, &errOut)
	if code != exitDenied || !strings.Contains(errOut.String(), "certificate") {
		t.Errorf("exit %d, stderr %q: want 1 and a certificate error", code, errOut.String())
	}
}
