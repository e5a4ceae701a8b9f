package plan

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// body builds a request body from its two fields (nil leaves one out).
func body(t *testing.T, arena any, deploy any) []byte {
	t.Helper()
	m := map[string]any{}
	if arena != nil {
		m[FieldArenaConfig] = arena
	}
	if deploy != nil {
		m[FieldDeployConfig] = deploy
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const kitYAML = `apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Arena
metadata:
  name: support
spec:
  prompt_configs: [{id: main, file: prompts/main.yaml}]
  deploy:
    provider: omnia
    adapterVersion: 2
    config:
      workspace: ignored
      providers:
        - name: default
          ref: claude-prod
        - name: embed
          ref: voyage
          role: embedding
          extra: ignored
      tool_registry_ref: support-tools
      skills:
        - source: policies
        - source: faq
    environments:
      production:
        config:
          providers:
            - {name: default, ref: claude-big}
`

const flatJSON = `{"prompt_configs": [], "deploy": {"provider": "omnia", "config": {
  "providers": [{"name": "default", "ref": "claude-prod", "role": "llm"}],
  "tools": [{"name": "lookup", "description": "find", "parameters": {"type": "object"}}, {"name": "b"}]}}}`

func TestDecode(t *testing.T) {
	ref := func(s string) *string { return &s }
	kit := &Request{Source: FieldArenaConfig, HasDeploy: true, Provider: "omnia",
		Providers:       []ProviderBinding{{Name: "default", Ref: "claude-prod"}, {Name: "embed", Ref: "voyage", Role: "embedding"}},
		ToolRegistryRef: ref("support-tools"),
		Skills:          []SkillBinding{{Source: "policies"}, {Source: "faq"}},
		Environments:    []Environment{{Name: "production", Providers: []ProviderBinding{{Name: "default", Ref: "claude-big"}}}},
	}
	flat := &Request{Source: FieldArenaConfig, HasDeploy: true, Provider: "omnia",
		Providers: []ProviderBinding{{Name: "default", Ref: "claude-prod", Role: "llm"}},
		Tools: []json.RawMessage{json.RawMessage(`{"name": "lookup", "description": "find", "parameters": {"type": "object"}}`),
			json.RawMessage(`{"name": "b"}`)},
	}
	for _, tc := range []struct {
		name string
		body []byte
		want *Request
	}{
		{"arena file YAML, spec.deploy; keys outside the deploy block and unknown keys inside it ignored", body(t, kitYAML, nil), kit},
		{"flattened JSON, top-level deploy; tools verbatim", body(t, flatJSON, nil), flat},
		{"flattened YAML, top-level deploy", body(t, "deploy:\n  provider: omnia\n  config:\n    providers: [{name: default, ref: claude-prod, role: llm}]\n    tools:\n      - {name: lookup, description: find, parameters: {type: object}}\n      - {name: b}\n", nil),
			&Request{Source: FieldArenaConfig, HasDeploy: true, Provider: "omnia",
				Providers: []ProviderBinding{{Name: "default", Ref: "claude-prod", Role: "llm"}},
				Tools: []json.RawMessage{json.RawMessage(`{"description":"find","name":"lookup","parameters":{"type":"object"}}`),
					json.RawMessage(`{"name":"b"}`)}}},
		{"arena file JSON, spec.deploy", body(t, `{"kind": "Arena", "spec": {"deploy": {"config": {"skills": [{"source": "faq"}]}}}}`, nil),
			&Request{Source: FieldArenaConfig, HasDeploy: true, Skills: []SkillBinding{{Source: "faq"}}}},
		{"spec.deploy wins over top-level deploy", body(t, "spec:\n  deploy: {provider: omnia}\ndeploy: {provider: other}\n", nil),
			&Request{Source: FieldArenaConfig, HasDeploy: true, Provider: "omnia"}},
		{"spec without deploy reads top-level deploy", body(t, "spec: {scenarios: []}\ndeploy: {provider: omnia}\n", nil),
			&Request{Source: FieldArenaConfig, HasDeploy: true, Provider: "omnia"}},
		{"no deploy block", body(t, "spec:\n  prompt_configs: []\n", nil), &Request{Source: FieldArenaConfig}},
		{"deploy: null is no deploy block", body(t, "deploy:\n", nil), &Request{Source: FieldArenaConfig}},
		{"empty deploy block", body(t, "spec:\n  deploy: {}\n", nil), &Request{Source: FieldArenaConfig, HasDeploy: true}},
		{"deployConfig alone", body(t, nil, map[string]any{"providers": []any{map[string]any{"name": "default", "ref": "c"}}}),
			&Request{Source: FieldDeployConfig, HasDeploy: true, Providers: []ProviderBinding{{Name: "default", Ref: "c"}}}},
		{"deployConfig wins; the arenaConfig is not even read", body(t, "{not yaml: [", map[string]any{"tool_registry_ref": "tools"}),
			&Request{Source: FieldDeployConfig, HasDeploy: true, ToolRegistryRef: ref("tools")}},
		{"deployConfig null counts as unset", []byte(`{"arenaConfig": "deploy: {provider: omnia}", "deployConfig": null}`),
			&Request{Source: FieldArenaConfig, HasDeploy: true, Provider: "omnia"}},
		{"deployConfig {} is set", []byte(`{"arenaConfig": "deploy: {provider: omnia}", "deployConfig": {}}`),
			&Request{Source: FieldDeployConfig, HasDeploy: true}},
		{"null lists and fields are unset", body(t, nil, map[string]any{"providers": nil, "skills": nil, "tools": nil, "tool_registry_ref": nil,
			"x": 1}), &Request{Source: FieldDeployConfig, HasDeploy: true}},
		{"keys are matched exactly", body(t, nil, map[string]any{"Providers": []any{1}, "providers": []any{map[string]any{"Name": 1, "name": "a"}}}),
			&Request{Source: FieldDeployConfig, HasDeploy: true, Providers: []ProviderBinding{{Name: "a"}}}},
		{"malformed environments are skipped, not planned", body(t, "deploy:\n  environments: [a, b]\n", nil),
			&Request{Source: FieldArenaConfig, HasDeploy: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.body)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Decode =\n %+v\nwant\n %+v", got, tc.want)
			}
		})
	}
}

func TestDecodeBadRequest(t *testing.T) {
	for _, tc := range []struct {
		name       string
		body       []byte
		field, key string
		// expected and decoder are substrings of the message: the expected
		// shape and the decoder's own error.
		expected, decoder string
	}{
		{"body not JSON", []byte(`{"arenaConfig":`), "body", "", "a JSON object", "unexpected end of JSON input"},
		{"body a list", []byte(`[]`), "body", "", "a JSON object", "cannot unmarshal array"},
		{"neither set", []byte(`{}`), "arenaConfig, deployConfig", "", "one of them set", "neither is set"},
		{"neither set: deployConfig null", []byte(`{"deployConfig": null}`), "arenaConfig, deployConfig", "", "one of them set", "neither is set"},
		{"neither set: arenaConfig empty", []byte(`{"arenaConfig": ""}`), "arenaConfig, deployConfig", "", "one of them set", "neither is set"},
		{"arenaConfig a number", []byte(`{"arenaConfig": 3}`), "arenaConfig", "", "a string", "cannot unmarshal number"},
		{"arenaConfig not YAML", body(t, "spec: [unclosed", nil), "arenaConfig", "", "a YAML or JSON mapping", "yaml"},
		{"arenaConfig a list", body(t, "- a\n- b\n", nil), "arenaConfig", "", "a YAML or JSON mapping", "cannot unmarshal array"},
		{"spec not a mapping", body(t, "spec: hello\n", nil), "arenaConfig", "spec", "a mapping", "cannot unmarshal string"},
		{"deploy a string", body(t, "spec:\n  deploy: omnia\n", nil), "arenaConfig", "spec.deploy", "a mapping {provider?, config?, environments?}", "cannot unmarshal string"},
		{"deploy.provider a number", body(t, "deploy:\n  provider: 7\n", nil), "arenaConfig", "deploy.provider", "a string", "cannot unmarshal number"},
		{"deploy.config a list", body(t, "deploy:\n  config: [a]\n", nil), "arenaConfig", "deploy.config", "a mapping {providers?", "cannot unmarshal array"},
		{"providers a name-keyed map", body(t, "spec:\n  deploy:\n    config:\n      providers:\n        default: {ref: claude-prod}\n", nil),
			"arenaConfig", "spec.deploy.config.providers", "a name-keyed map is not accepted", "cannot unmarshal object"},
		{"role sent as a number", body(t, "spec:\n  deploy:\n    config:\n      providers:\n        - {name: a, ref: b}\n        - {name: default, ref: claude-prod, role: 1}\n", nil),
			"arenaConfig", "spec.deploy.config.providers[1].role", "a string", "cannot unmarshal number"},
		{"more providers than MaxBindings", []byte(`{"deployConfig":{"providers":[` + strings.Repeat(`{"name":"a","ref":"b"},`, MaxBindings) + `{"name":"a","ref":"b"}]}}`),
			"deployConfig", "providers", "at most 256 entries", "257 entries"},
		{"provider item null", body(t, "deploy:\n  config:\n    providers:\n      -\n", nil),
			"arenaConfig", "deploy.config.providers[0]", "a provider binding {name, ref, role?}", "got null"},
		{"provider item a string", body(t, "deploy:\n  config:\n    providers: [claude-prod]\n", nil),
			"arenaConfig", "deploy.config.providers[0]", "a provider binding", "cannot unmarshal string"},
		{"skills a list of bare strings", body(t, "spec:\n  deploy:\n    config:\n      skills: [policies, faq]\n", nil),
			"arenaConfig", "spec.deploy.config.skills[0]", "a list of bare strings is not accepted", "cannot unmarshal string"},
		{"skills a map", body(t, "deploy:\n  config:\n    skills: {policies: {}}\n", nil),
			"arenaConfig", "deploy.config.skills", "a list of skill bindings", "cannot unmarshal object"},
		{"skill source a list", body(t, "deploy:\n  config:\n    skills: [{source: [a]}]\n", nil),
			"arenaConfig", "deploy.config.skills[0].source", "a string", "cannot unmarshal array"},
		{"tools not a list", body(t, "deploy:\n  config:\n    tools: {lookup: {}}\n", nil),
			"arenaConfig", "deploy.config.tools", "a list of inline tool definitions", "cannot unmarshal object"},
		{"tool_registry_ref a bool", body(t, "deploy:\n  config:\n    tool_registry_ref: true\n", nil),
			"arenaConfig", "deploy.config.tool_registry_ref", "a string", "cannot unmarshal bool"},
		{"deployConfig a string", []byte(`{"deployConfig": "providers: []"}`), "deployConfig", "", "a mapping {providers?", "cannot unmarshal string"},
		{"deployConfig providers a map", []byte(`{"deployConfig": {"providers": {"default": {"ref": "c"}}}}`),
			"deployConfig", "providers", "a name-keyed map is not accepted", "cannot unmarshal object"},
		{"deployConfig role a number, arenaConfig fine", []byte(`{"arenaConfig": "deploy: {}", "deployConfig": {"providers": [{"name": "d", "ref": "c", "role": 2}]}}`),
			"deployConfig", "providers[0].role", "a string", "cannot unmarshal number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := Decode(tc.body)
			var bad *BadRequestError
			if !errors.As(err, &bad) {
				t.Fatalf("Decode = %+v, %v; want a *BadRequestError", req, err)
			}
			if bad.Field != tc.field || bad.Key != tc.key {
				t.Errorf("field, key = %q, %q; want %q, %q (%v)", bad.Field, bad.Key, tc.field, tc.key, err)
			}
			msg := err.Error()
			for _, want := range []string{tc.field, tc.key, tc.expected, tc.decoder} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q does not contain %q", msg, want)
				}
			}
		})
	}
}
