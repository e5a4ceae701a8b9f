package intent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// specExample is deploy-intent.md's project example.
const specExample = `{
  "apiVersion": "deploy.omnia.altairalabs.ai/v1",
  "pack": { "project": { "id": "my-project" } },
  "agents": [{
    "providers": [{ "name": "default", "ref": "claude" }],
    "facades": [{ "type": "websocket", "dataPlane": false }],
    "idleTimeout": "30m"
  }]
}`

// fullIntent sets every field of the intent once.
const fullIntent = `{
  "apiVersion": "deploy.omnia.altairalabs.ai/v1",
  "pack": {
    "name": "support", "version": "v1.2.3", "content": "{\"id\":\"support\"}",
    "skills": [{ "source": "policies", "include": ["refunds"], "mountAs": "p" }],
    "skillsConfig": { "maxActive": 3, "selector": "tier=gold" }
  },
  "tools": { "handlers": [{
    "name": "github", "type": "http",
    "tool": { "name": "search", "inputSchema": { "type": "object" } },
    "httpConfig": { "endpoint": "https://api.github.com" , "headers_from_env": ["Authorization=GITHUB_TOKEN"] },
    "openAPIConfig": {}, "grpcConfig": {}, "mcpConfig": {}, "clientConfig": {},
    "auth": { "type": "bearer" }, "timeout": "10s"
  }] },
  "policy": { "toolBlocklist": ["delete_repo"] },
  "credentials": { "data": { "GITHUB_TOKEN": "ghp_x" } },
  "labels": { "team": "support" },
  "agents": [{
    "name": "support-bot", "promptName": "main", "create": true, "preserveUnset": false, "idleTimeout": "1h",
    "providers": [{ "name": "default", "ref": "claude", "role": "llm" }],
    "runtime": { "replicas": 2, "cpu": "500m", "memory": "1Gi" },
    "facades": [{ "type": "websocket", "managementPlane": true, "dataPlane": true }],
    "useTools": true,
    "externalAuth": {
      "clientKeys": { "defaultRole": "user", "trustEndUserHeader": true },
      "oidc": { "issuer": "https://idp", "audience": "bot", "claimMapping": { "subject": "sub", "endUser": "email" } },
      "edgeTrust": { "headerMapping": { "subject": "x-sub", "endUser": "x-user", "email": "x-email" }, "claimsFromHeaders": { "tier": "x-tier" } }
    },
    "memory": { "enabled": true, "retrieval": { "enabled": true, "strategy": "semantic", "limit": 5, "denyCEL": "false" }, "tools": { "enabled": true } },
    "evals": { "enabled": true, "inlineGroups": ["a"], "workerGroups": ["b"] },
    "rollout": { "trigger": { "promptPackChannel": "stable" }, "steps": [{ "setWeight": 20, "pauseDuration": "5m" }] }
  }]
}`

func TestDecodeAccepts(t *testing.T) {
	in, err := Decode([]byte(fullIntent))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	a := in.Agents[0]
	h := in.Tools.Handlers[0]
	switch {
	case in.Pack.Version != "1.2.3":
		t.Errorf("pack.version = %q, want the leading v stripped", in.Pack.Version)
	case *in.Pack.SkillsConfig.MaxActive != 3 || *a.Runtime.Replicas != 2 || !*a.Create || *a.PreserveUnset:
		t.Errorf("scalars: %+v", a)
	case string(h.HTTPConfig) != `{"endpoint":"https://api.github.com","headers_from_env":["Authorization=GITHUB_TOKEN"]}`:
		t.Errorf("httpConfig = %s, want it verbatim and compact", h.HTTPConfig)
	case in.Credentials.Data["GITHUB_TOKEN"] != "ghp_x" || a.ExternalAuth.EdgeTrust.ClaimsFromHeaders["tier"] != "x-tier":
		t.Errorf("maps: %+v", in.Credentials)
	case a.Rollout.Trigger.PromptPackChannel != "stable" || *a.Rollout.Steps[0].SetWeight != 20:
		t.Errorf("rollout: %+v", a.Rollout)
	}
	if _, err := Decode([]byte(specExample)); err != nil {
		t.Errorf("the spec's example: %v", err)
	}
}

func TestNormalizeVersion(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"v1.2.3", "1.2.3"}, {"1.2.3", "1.2.3"}, {"V1.2.3", "V1.2.3"}, {"vv1", "vv1"}, {"v", "v"}, {"", ""}, {"version", "version"}, {"v0", "0"},
	} {
		in := DeployIntent{Pack: Pack{Version: tc.in}}
		in.Normalize()
		if in.Pack.Version != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, in.Pack.Version, tc.want)
		}
		in.Normalize()
		if in.Pack.Version != tc.want {
			t.Errorf("Normalize twice (%q) = %q, want %q: not idempotent", tc.in, in.Pack.Version, tc.want)
		}
	}
}

// withIntent replaces the first occurrence of old in the spec example.
func withIntent(old, new string) string {
	if !strings.Contains(specExample, old) {
		panic("no " + old)
	}
	return strings.Replace(specExample, old, new, 1)
}

func TestDecodeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		path       string // the DecodeError's path
		msg        string // a substring of its message
		offset     bool   // an offset is known
	}{
		{"unknown nested field", withIntent(`"idleTimeout": "30m"`, `"idleTimeout": "30m", "runtime": {"gpu": 1}`),
			"agents[0].runtime.gpu", `unknown field "gpu"`, true},
		{"unknown top-level field", withIntent(`"pack"`, `"extra": 1, "pack"`), "extra", `unknown field "extra"`, true},
		{"a key in another case", withIntent(`"idleTimeout"`, `"IdleTimeout"`), "agents[0].IdleTimeout", "unknown field", true},
		{"unknown field in the second facade", withIntent(`"dataPlane": false }`, `"dataPlane": false }, {"type": "a2a", "port": 9}`),
			"agents[0].facades[1].port", "unknown field", true},
		{"unrecognised apiVersion", withIntent(`omnia.altairalabs.ai/v1`, `omnia.altairalabs.ai/v2`),
			"apiVersion", `unsupported apiVersion "deploy.omnia.altairalabs.ai/v2"; the supported version is "deploy.omnia.altairalabs.ai/v1"`, false},
		{"another version's fields are not parsed", `{"apiVersion": "deploy.omnia.altairalabs.ai/v2", "newThing": {}}`,
			"apiVersion", "unsupported apiVersion", false},
		{"apiVersion not a string", withIntent(`"deploy.omnia.altairalabs.ai/v1"`, `1`), "apiVersion", "unsupported apiVersion 1", false},
		{"no apiVersion", `{"pack": {}, "agents": []}`, "apiVersion", "required; the supported version is", false},
		{"trailing data", specExample + ` {}`, "", "after top-level value", true},
		{"trailing garbage", specExample + `x`, "", "after top-level value", true},
		{"malformed JSON", `{"apiVersion": "deploy.omnia.altairalabs.ai/v1",`, "", "malformed JSON: unexpected end of JSON input", true},
		{"malformed inside", withIntent(`"30m"`, `30m`), "", "malformed JSON: invalid character", true},
		{"not an object", `[1]`, "", "want an object, got array", true},
		{"null body", `null`, "", "the body is null", false},
		{"missing required pack", `{"apiVersion": "deploy.omnia.altairalabs.ai/v1", "agents": []}`, "pack", "required", true},
		{"missing required agents", `{"apiVersion": "deploy.omnia.altairalabs.ai/v1", "pack": {}}`, "agents", "required", true},
		{"missing provider ref", withIntent(`, "ref": "claude"`, ``), "agents[0].providers[0].ref", "required", true},
		{"null required field", withIntent(`"ref": "claude"`, `"ref": null`), "agents[0].providers[0].ref", "null is not a value", true},
		{"null list entry", withIntent(`[{ "name": "default"`, `[null, { "name": "default"`), "agents[0].providers[0]", "null is not a value", true},
		{"wrong type", withIntent(`"dataPlane": false`, `"dataPlane": "no"`), "agents[0].facades[0].dataPlane", "want a boolean, got a string", true},
		{"int32 overflow", withIntent(`"idleTimeout": "30m"`, `"idleTimeout": "30m", "runtime": {"replicas": 4294967296}`),
			"agents[0].runtime.replicas", "want a 32-bit integer", true},
		{"fraction for an integer", withIntent(`"idleTimeout": "30m"`, `"idleTimeout": "30m", "runtime": {"replicas": 1.5}`),
			"agents[0].runtime.replicas", "want a 32-bit integer", true},
		{"duplicate key", withIntent(`"idleTimeout": "30m"`, `"idleTimeout": "30m", "idleTimeout": "1h"`), "agents[0].idleTimeout", "duplicate key", true},
		{"duplicate map key", withIntent(`"pack"`, `"labels": {"a": "1", "a": "2"}, "pack"`), "labels[a]", "duplicate key", true},
		{"a free-form block not an object", handlerBody(`"https://x"`), "tools.handlers[0].httpConfig", "want an object, got a string", true},
		{"a map value not a string", withIntent(`"pack"`, `"credentials": {"data": {"K": 1}}, "pack"`), "credentials.data[K]", "want a string", true},
		{"too many agents", agentsBody(MaxAgents + 1), "agents", fmt.Sprintf("at most %d entries", MaxAgents), true},
		{"too many credential keys", credentialsBody(MaxCredentialKeys + 1), "credentials.data", fmt.Sprintf("at most %d keys", MaxCredentialKeys), true},
		{"too deep a free-form block", handlerBody(`{"a": ` + strings.Repeat("[", MaxRawDepth) + strings.Repeat("]", MaxRawDepth) + `}`),
			"tools.handlers[0].httpConfig", "nested more than", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Decode([]byte(tc.body))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Decode = %+v, %v; want a *DecodeError", in, err)
			}
			if de.Path != tc.path || !strings.Contains(de.Msg, tc.msg) || (de.Offset >= 0) != tc.offset {
				t.Errorf("error = {Path: %q, Offset: %d, Msg: %q}, want path %q, a message with %q, offset known %v",
					de.Path, de.Offset, de.Msg, tc.path, tc.msg, tc.offset)
			}
			if tc.path != "" && !strings.HasPrefix(de.Error(), tc.path+": ") {
				t.Errorf("Error() = %q does not start with the path", de.Error())
			}
		})
	}
}

func TestDecodeBoundsAccepted(t *testing.T) {
	for name, body := range map[string]string{
		"MaxAgents agents":                  agentsBody(MaxAgents),
		"MaxCredentialKeys keys":            credentialsBody(MaxCredentialKeys),
		"a block MaxRawDepth-1 levels deep": handlerBody(`{"a": ` + strings.Repeat("[", MaxRawDepth-1) + strings.Repeat("]", MaxRawDepth-1) + `}`),
	} {
		if _, err := Decode([]byte(body)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func agentsBody(n int) string {
	agent := `{"providers": [{"name": "default", "ref": "claude"}]}`
	return `{"apiVersion": "deploy.omnia.altairalabs.ai/v1", "pack": {}, "agents": [` + strings.Repeat(agent+",", n-1) + agent + `]}`
}

func credentialsBody(n int) string {
	data := map[string]string{}
	for i := range n {
		data[fmt.Sprintf("K%d", i)] = "v"
	}
	b, _ := json.Marshal(data)
	return withIntent(`"pack"`, `"credentials": {"data": `+string(b)+`}, "pack"`)
}

func handlerBody(config string) string {
	return withIntent(`"pack"`, `"tools": {"handlers": [{"name": "h", "type": "http", "httpConfig": `+config+`}]}, "pack"`)
}

// TestDecodeNullOptional: null is "absent" for an optional field, a null
// free-form block included.
func TestDecodeNullOptional(t *testing.T) {
	in, err := Decode([]byte(withIntent(`"pack"`, `"tools": {"handlers": [{"name": "h", "type": "http", "tool": null, "auth": { "a" : 1 }}]}, "labels": null, "pack"`)))
	if err != nil {
		t.Fatal(err)
	}
	if h := in.Tools.Handlers[0]; h.Tool != nil || string(h.Auth) != `{"a":1}` || in.Labels != nil {
		t.Errorf("tool = %q, auth = %q, labels = %v; want tool absent, auth compact, labels absent", h.Tool, h.Auth, in.Labels)
	}
}

// BenchmarkDecode: the full intent, and MaxAgents agents.
func BenchmarkDecode(b *testing.B) {
	for name, body := range map[string][]byte{"full": []byte(fullIntent), "maxAgents": []byte(agentsBody(MaxAgents))} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := Decode(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
