package workload

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Runtime container environment.
const (
	// EnvPackMode is reserved; the operator sets it to static on the runtime
	// (compile mode, for live packs, is not built here).
	EnvPackMode = "OMNIA_PACK_MODE"

	EnvGRPCPort              = "OMNIA_GRPC_PORT"
	EnvPolicyBrokerAddress   = "OMNIA_POLICY_BROKER_ADDRESS"
	EnvPromptPackName        = "OMNIA_PROMPTPACK_NAME"
	EnvPromptPackVersion     = "OMNIA_PROMPTPACK_VERSION"
	EnvPromptPackPath        = "OMNIA_PROMPTPACK_PATH"
	EnvProviders             = "OMNIA_PROVIDERS"
	EnvToolRegistryName      = "OMNIA_TOOLREGISTRY_NAME"
	EnvContextType           = "OMNIA_CONTEXT_TYPE"
	EnvContextTTL            = "OMNIA_CONTEXT_TTL"
	EnvContextRedisURL       = "OMNIA_CONTEXT_REDIS_URL"
	EnvSandboxAPIURL         = "OMNIA_SANDBOX_API_URL"
	EnvEventsRecord          = "OMNIA_EVENTS_RECORD"
	EnvOutputFormat          = "OMNIA_OUTPUT_FORMAT"
	envProviderPrefix        = "OMNIA_PROVIDER_"
	defaultContextType       = "memory"
	defaultContextTTL        = "24h"
	defaultEventsRecord      = "all"
	defaultFunctionOutFormat = "json_schema"
	// contextRedisSecretKey is the key of context.storeRef's Secret that
	// holds the Redis connection string.
	contextRedisSecretKey = "url"
)

// ProviderEnvPrefix is the prefix of every variable for the
// spec.providers[] entry named name: OMNIA_PROVIDER_<NAME>_, with the name
// upper-cased and '-' turned to '_'.
func ProviderEnvPrefix(name string) string { return envProviderPrefix + envNameOf(name) + "_" }

// runtimeEnv is the runtime container's operator environment.
func runtimeEnv(ar *v1alpha1.AgentRuntime, r *Resolved) envSet {
	e := identityEnv(ar)
	e.lit(EnvPackMode, "static")
	e.lit(EnvGRPCPort, strconv.Itoa(int(RuntimeGRPCPort)))
	e.lit(EnvPolicyBrokerAddress, "localhost:"+strconv.Itoa(int(BrokerGRPCPort)))
	if p := r.PromptPack; p != nil {
		e.lit(EnvPromptPackName, p.PackName)
		e.litIf(EnvPromptPackVersion, p.Version)
		if p.ConfigMapName != "" {
			e.lit(EnvPromptPackPath, PromptPackMountPath+"/"+PromptPackFile)
		}
	}
	providerEnv(e, ar, r)
	e.litIf(EnvToolRegistryName, r.ToolRegistryName)
	toolsEnv(e, r.Tools)
	a2aClientsEnv(e, ar, r)
	e.litIf(EnvSessionAPIURL, r.SessionAPIURL)
	e.litIf(EnvMemoryAPIURL, r.MemoryAPIURL)
	platformToolsEnv(e, r)
	contextEnv(e, ar)
	if ar.Spec.Sandbox != nil && ar.Spec.Sandbox.Enabled {
		e.litIf(EnvSandboxAPIURL, r.SandboxAPIURL)
	}
	record := defaultEventsRecord
	if rt := ar.Spec.Runtime; rt != nil && rt.Events != nil && rt.Events.Record != "" {
		record = string(rt.Events.Record)
	}
	e.lit(EnvEventsRecord, record)
	if ar.Spec.Mode == v1alpha1.AgentRuntimeModeFunction {
		e.lit(EnvOutputFormat, stringOr(string(ar.Spec.OutputFormat), defaultFunctionOutFormat))
	}
	mediaEnv(e, ar)
	return e
}

// providerEnv wires every resolved spec.providers[] entry into the runtime.
// The pod's Role cannot read Providers or Secrets, so the runtime gets each
// Provider as variables: OMNIA_PROVIDERS lists the entry names (sorted), and
// for each entry OMNIA_PROVIDER_<NAME>_ holds
//
//   - PROVIDER: the Provider object's name;
//   - TYPE, ROLE (the Provider's spec.role, llm when unset) and MODEL;
//   - SPEC: the Provider's whole spec as JSON (platform, auth, baseURL,
//     headers, defaults), which holds no secret;
//   - the credential: API_KEY from the credential Secret's key
//     (ResolvedProvider.SecretKey, else credential.secretRef.key),
//     CREDENTIAL_ENV naming the variable for credential.envVar, or
//     CREDENTIAL_FILE for credential.filePath.
//
// An entry the controller did not resolve is left out: the agent is not
// started while ProviderReady is False, so this only matters for a partial
// build.
func providerEnv(e envSet, ar *v1alpha1.AgentRuntime, r *Resolved) {
	var names []string
	for _, entry := range ar.Spec.Providers {
		rp, ok := r.Providers[entry.Name]
		if !ok || rp.Provider == nil {
			continue
		}
		names = append(names, entry.Name)
		p := rp.Provider
		pre := ProviderEnvPrefix(entry.Name)
		e.lit(pre+"PROVIDER", p.Name)
		e.lit(pre+"TYPE", string(p.Spec.Type))
		role := string(p.Spec.Role)
		if role == "" {
			role = "llm"
		}
		e.lit(pre+"ROLE", role)
		e.litIf(pre+"MODEL", p.Spec.Model)
		if spec, err := json.Marshal(p.Spec); err == nil { // a typed struct always marshals
			e.lit(pre+"SPEC", string(spec))
		}
		c := p.Spec.Credential
		switch {
		case c == nil:
		case c.SecretRef != nil:
			key := rp.SecretKey
			if key == "" {
				key = c.SecretRef.Key
			}
			if key != "" {
				e.secret(pre+"API_KEY", c.SecretRef.Name, key)
			}
		case c.EnvVar != "":
			e.lit(pre+"CREDENTIAL_ENV", c.EnvVar)
		case c.FilePath != "":
			e.lit(pre+"CREDENTIAL_FILE", c.FilePath)
		}
	}
	if len(names) > 0 {
		slices.Sort(names)
		e.lit(EnvProviders, strings.Join(names, ","))
	}
}

// contextEnv sets the context store: type (memory), TTL (24h) and, for
// redis, the connection string from context.storeRef's url key.
func contextEnv(e envSet, ar *v1alpha1.AgentRuntime) {
	c := ar.Spec.Context
	t, ttl := defaultContextType, defaultContextTTL
	if c != nil {
		t = stringOr(string(c.Type), t)
		ttl = stringOr(c.TTL, ttl)
	}
	e.lit(EnvContextType, t)
	e.lit(EnvContextTTL, ttl)
	if t == "redis" && c.StoreRef != nil {
		e.secret(EnvContextRedisURL, c.StoreRef.Name, contextRedisSecretKey)
	}
}
