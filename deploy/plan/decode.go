// Package plan answers POST /api/v1/workspaces/{workspace}/deploy/plan
// (deploy-intent.md § Checking a plan before you deploy): Decode reads the
// request body into the deploy block to plan, and Plan resolves its provider,
// tool-registry and skill bindings against a workspace namespace, read-only,
// into the spec's diagnostics.
//
// Decoding choices the spec leaves open:
//   - Keys outside the deploy block are ignored (the arena config file has
//     many), and so are keys inside the deploy block and inside
//     deploy.config other than the ones the plan reads (provider; config's
//     providers, tool_registry_ref, tools, skills; environments): the plan
//     reads only those, and a kit's adapter settings beside them are not
//     the plan's to refuse. Keys are matched exactly (case-sensitive).
//   - The keys the plan reads are decoded strictly: a wrong type (a role
//     sent as a number, a name-keyed map of providers, a bare-string list of
//     skills, a null list item) is a 400 naming the key.
//   - deploy.environments is only read to name the providers found there in
//     the no_provider_bindings remediation; entries that do not have the
//     expected shape are skipped, never a 400 (they are not planned).
//   - A JSON null counts as unset for deployConfig, arenaConfig, spec,
//     deploy, config and each list; an empty arenaConfig string is unset.
//   - When deployConfig is set, arenaConfig is not read at all.
package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"sigs.k8s.io/yaml"
)

// The request's two fields, as the body names them.
const (
	FieldArenaConfig  = "arenaConfig"
	FieldDeployConfig = "deployConfig"
)

// BadRequestError is a malformed plan request: the HTTP server answers 400
// with its message, which names the key, the expected shape and the
// decoder's own error.
type BadRequestError struct {
	// Field is the request field at fault: arenaConfig, deployConfig, or
	// "body" for the body itself.
	Field string
	// Key is the path inside Field ("spec.deploy.config.providers[0].role"),
	// empty when Field itself is at fault.
	Key string
	// Expected is the shape the key must have.
	Expected string
	// Err is the decoder's error.
	Err error
}

func (e *BadRequestError) Error() string {
	k := e.Field
	if e.Key != "" {
		k += ": " + e.Key
	}
	return k + ": expected " + e.Expected + ": " + e.Err.Error()
}

func (e *BadRequestError) Unwrap() error { return e.Err }

// Request is a decoded plan request: the deploy block to plan.
type Request struct {
	// Source is the field planned: FieldArenaConfig or FieldDeployConfig
	// (which wins when both are set).
	Source string
	// HasDeploy is false only for an arenaConfig with neither spec.deploy
	// nor deploy (the no_deploy_config answer).
	HasDeploy bool
	// Provider is deploy.provider; empty when unset (and always for a
	// deployConfig, which is deploy.config alone).
	Provider string
	// Providers are deploy.config.providers, in input order, as sent
	// (Role empty when unset).
	Providers []ProviderBinding
	// ToolRegistryRef is deploy.config.tool_registry_ref; nil when unset.
	ToolRegistryRef *string
	// Tools are deploy.config.tools, verbatim (as JSON); nil when unset.
	Tools []json.RawMessage
	// Skills are deploy.config.skills, in input order.
	Skills []SkillBinding
	// Environments are the providers found under deploy.environments.*, by
	// environment name (sorted); only environments with providers.
	Environments []Environment
}

// ProviderBinding is one deploy.config.providers entry.
type ProviderBinding struct {
	Name string
	Ref  string
	Role string
}

// SkillBinding is one deploy.config.skills entry.
type SkillBinding struct {
	Source string
}

// Environment names the provider bindings of one deploy.environments entry.
type Environment struct {
	Name      string
	Providers []ProviderBinding
}

// Shapes named in 400 messages.
const (
	shapeBody         = "a JSON object {arenaConfig?: string, deployConfig?: object}"
	shapeArenaString  = "a string (the kit's arena config file, YAML or JSON)"
	shapeArenaDoc     = "a YAML or JSON mapping (an arena config file with spec.deploy, or a flattened config with deploy)"
	shapeMapping      = "a mapping"
	shapeDeploy       = "a mapping {provider?, config?, environments?}"
	shapeConfig       = "a mapping {providers?, tool_registry_ref?, tools?, skills?}"
	shapeProviders    = "a list of provider bindings [{name, ref, role?}] (a name-keyed map is not accepted)"
	shapeProvider     = "a provider binding {name, ref, role?}"
	shapeTools        = "a list of inline tool definitions"
	shapeSkills       = "a list of skill bindings [{source}]"
	shapeSkill        = "a skill binding {source} (a list of bare strings is not accepted)"
	shapeString       = "a string"
	shapeProviderName = "a string (deploy.provider, e.g. omnia)"
)

// Decode reads a plan request body. A malformed request is a
// *BadRequestError.
func Decode(body []byte) (*Request, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, &BadRequestError{Field: "body", Expected: shapeBody, Err: err}
	}
	if dc, ok := top[FieldDeployConfig]; ok && !isNull(dc) {
		d := &decoder{field: FieldDeployConfig}
		req := &Request{Source: FieldDeployConfig, HasDeploy: true}
		if err := d.config(req, dc, ""); err != nil {
			return nil, err
		}
		return req, nil
	}
	ac, ok := top[FieldArenaConfig]
	var text *string
	if ok {
		if err := json.Unmarshal(ac, &text); err != nil {
			return nil, &BadRequestError{Field: FieldArenaConfig, Expected: shapeArenaString, Err: err}
		}
	}
	if text == nil || *text == "" {
		return nil, &BadRequestError{Field: FieldArenaConfig + ", " + FieldDeployConfig,
			Expected: "one of them set (arenaConfig: the arena config as a YAML or JSON string; deployConfig: a deploy.config object)",
			Err:      errors.New("neither is set")}
	}
	return decodeArena(*text)
}

// decodeArena reads an arenaConfig: spec.deploy when present, else
// top-level deploy.
func decodeArena(text string) (*Request, error) {
	d := &decoder{field: FieldArenaConfig}
	// JSON is read as it is, so inline tools stay verbatim; YAML is
	// converted to JSON first.
	data := []byte(text)
	if !json.Valid(data) {
		var err error
		if data, err = yaml.YAMLToJSON(data); err != nil {
			return nil, d.bad("", shapeArenaDoc, err)
		}
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, d.bad("", shapeArenaDoc, err)
	}
	req := &Request{Source: FieldArenaConfig}
	var block json.RawMessage
	path := ""
	if raw, ok := doc["spec"]; ok && !isNull(raw) {
		var spec map[string]json.RawMessage
		if err := json.Unmarshal(raw, &spec); err != nil {
			return nil, d.bad("spec", shapeMapping, err)
		}
		if dep, ok := spec["deploy"]; ok && !isNull(dep) {
			block, path = dep, "spec.deploy"
		}
	}
	if block == nil {
		if dep, ok := doc["deploy"]; ok && !isNull(dep) {
			block, path = dep, "deploy"
		}
	}
	if block == nil {
		return req, nil
	}
	req.HasDeploy = true
	var deploy map[string]json.RawMessage
	if err := json.Unmarshal(block, &deploy); err != nil {
		return nil, d.bad(path, shapeDeploy, err)
	}
	if raw, ok := deploy["provider"]; ok {
		var p *string
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, d.bad(path+".provider", shapeProviderName, err)
		}
		if p != nil {
			req.Provider = *p
		}
	}
	if raw, ok := deploy["config"]; ok && !isNull(raw) {
		if err := d.config(req, raw, path+".config"); err != nil {
			return nil, err
		}
	}
	req.Environments = environments(deploy["environments"])
	return req, nil
}

// decoder reads one request field, naming keys inside it.
type decoder struct{ field string }

func (d *decoder) bad(key, expected string, err error) error {
	return &BadRequestError{Field: d.field, Key: key, Expected: expected, Err: err}
}

// join names a key below path ("" is the field itself).
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// errNull is the decoder error for a null where an object is required.
var errNull = errors.New("got null")

// config reads a deploy.config object into req.
func (d *decoder) config(req *Request, raw json.RawMessage, path string) error {
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return d.bad(path, shapeConfig, err)
	}
	if cfg == nil {
		return d.bad(path, shapeConfig, errNull)
	}
	items, err := d.list(cfg, path, "providers", shapeProviders)
	if err != nil {
		return err
	}
	for i, item := range items {
		p := index(join(path, "providers"), i)
		m, err := d.object(item, p, shapeProvider)
		if err != nil {
			return err
		}
		var b ProviderBinding
		for _, f := range []struct {
			key string
			dst *string
		}{{"name", &b.Name}, {"ref", &b.Ref}, {"role", &b.Role}} {
			if err := d.str(m, p, f.key, f.dst); err != nil {
				return err
			}
		}
		req.Providers = append(req.Providers, b)
	}
	if raw, ok := cfg["tool_registry_ref"]; ok && !isNull(raw) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return d.bad(join(path, "tool_registry_ref"), shapeString+" (the name of a ToolRegistry)", err)
		}
		req.ToolRegistryRef = &s
	}
	if req.Tools, err = d.list(cfg, path, "tools", shapeTools); err != nil {
		return err
	}
	items, err = d.list(cfg, path, "skills", shapeSkills)
	if err != nil {
		return err
	}
	for i, item := range items {
		p := index(join(path, "skills"), i)
		m, err := d.object(item, p, shapeSkill)
		if err != nil {
			return err
		}
		var s SkillBinding
		if err := d.str(m, p, "source", &s.Source); err != nil {
			return err
		}
		req.Skills = append(req.Skills, s)
	}
	return nil
}

// list reads cfg[key] as a list; nil when absent or null.
func (d *decoder) list(cfg map[string]json.RawMessage, path, key, shape string) ([]json.RawMessage, error) {
	raw, ok := cfg[key]
	if !ok || isNull(raw) {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, d.bad(join(path, key), shape, err)
	}
	if len(items) > MaxBindings {
		// Each binding is a lookup and a schema pass: a kit's handful, not
		// what a 1 MiB body could hold.
		return nil, d.bad(join(path, key), fmt.Sprintf("at most %d entries", MaxBindings),
			fmt.Errorf("%d entries", len(items)))
	}
	return items, nil
}

// MaxBindings bounds each of a plan's lists (providers, tools, skills).
const MaxBindings = 256

// object reads one list item as an object.
func (d *decoder) object(raw json.RawMessage, path, shape string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, d.bad(path, shape, err)
	}
	if m == nil {
		return nil, d.bad(path, shape, errNull)
	}
	return m, nil
}

// str reads m[key] as a string into dst; absent or null leaves it empty.
func (d *decoder) str(m map[string]json.RawMessage, path, key string, dst *string) error {
	raw, ok := m[key]
	if !ok || isNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return d.bad(join(path, key), shapeString, err)
	}
	return nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// environments reads deploy.environments leniently: only to name the
// providers found there (no_provider_bindings), never a 400.
func environments(raw json.RawMessage) []Environment {
	var envs map[string]json.RawMessage
	if raw == nil || json.Unmarshal(raw, &envs) != nil {
		return nil
	}
	names := make([]string, 0, len(envs))
	for name := range envs {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []Environment
	for _, name := range names {
		var env struct {
			Config struct {
				Providers []json.RawMessage `json:"providers"`
			} `json:"config"`
		}
		if json.Unmarshal(envs[name], &env) != nil {
			continue
		}
		var bs []ProviderBinding
		for _, item := range env.Config.Providers {
			var b struct {
				Name string `json:"name"`
				Ref  string `json:"ref"`
			}
			if json.Unmarshal(item, &b) == nil && (b.Name != "" || b.Ref != "") {
				bs = append(bs, ProviderBinding{Name: b.Name, Ref: b.Ref})
			}
		}
		if len(bs) > 0 {
			out = append(out, Environment{Name: name, Providers: bs})
		}
	}
	return out
}
