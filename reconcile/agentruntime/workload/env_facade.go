package workload

import (
	"strconv"
	"time"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// Facade container environment.
const (
	// EnvSessionTags and EnvSessionPackName are reserved; the operator sets
	// them empty on the facade (no dev-session identity), as explicit env
	// entries that win over any podOverrides.extraEnvFrom source.
	EnvSessionTags     = "OMNIA_SESSION_TAGS"
	EnvSessionPackName = "OMNIA_SESSION_PACK_NAME"
	// EnvIdleTimeout is reserved; set on the facade to the idle-timeout
	// annotation's value, which switches on lastUsedAt renewal.
	EnvIdleTimeout = "OMNIA_IDLE_TIMEOUT"

	EnvFacadeType        = "OMNIA_FACADE_TYPE"
	EnvHandler           = "OMNIA_HANDLER"
	EnvDrainTimeout      = "OMNIA_DRAIN_TIMEOUT"
	EnvClientToolTimeout = "OMNIA_CLIENT_TOOL_TIMEOUT"
	EnvRuntimeAddress    = "OMNIA_RUNTIME_ADDRESS"
	EnvAsyncEnabled      = "OMNIA_ASYNC_ENABLED"
	EnvAsyncWorkers      = "OMNIA_ASYNC_WORKERS"
	EnvAsyncRedisURL     = "OMNIA_ASYNC_REDIS_URL"
	// EnvAsyncRedisKeyPrefix starts every key the facade's async queue
	// uses: the namespace's own keys, the only ones its Redis user reaches.
	EnvAsyncRedisKeyPrefix = "OMNIA_ASYNC_REDIS_KEY_PREFIX"
	EnvA2ATaskStore        = "OMNIA_A2A_TASK_STORE"
	EnvA2ATaskStoreURL     = "OMNIA_A2A_TASK_STORE_REDIS_URL"

	defaultHandler           = "runtime"
	defaultDrainTimeout      = 30 * time.Second
	maxDrainTimeout          = 600 * time.Second
	defaultClientToolTimeout = "60s"
	// RedisURLSecretKey is the key of an async or A2A task-store Secret
	// that holds the Redis URL.
	RedisURLSecretKey = "url"
)

// PortEnvName is the variable a facade listener's port is given in:
// OMNIA_<PORT NAME>_PORT, so OMNIA_FACADE_PORT, OMNIA_FACADE_MGMT_PORT,
// OMNIA_A2A_PORT, OMNIA_MCP_MGMT_PORT, … A listener without a variable
// (dataPlane or managementPlane false) is not bound.
func PortEnvName(portName string) string { return "OMNIA_" + envNameOf(portName) + "_PORT" }

// facadeEnv is the facade container's operator environment.
func facadeEnv(ar *v1alpha1.AgentRuntime, r *Resolved, ports []FacadePort) envSet {
	e := identityEnv(ar)
	e.lit(EnvSessionTags, "")
	e.lit(EnvSessionPackName, "")
	if v, ok := ar.Annotations[rules.AgentRuntimeIdleTimeoutAnnotation]; ok {
		// An invalid value is IdleTimeoutValid=False: no renewal, no reaping.
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			e.lit(EnvIdleTimeout, v)
		}
	}
	e.lit(EnvHealthPort, strconv.Itoa(int(FacadeHealthPort)))
	e.lit(EnvRuntimeAddress, "localhost:"+strconv.Itoa(int(RuntimeGRPCPort)))
	e.litIf(EnvSessionAPIURL, r.SessionAPIURL)
	for _, p := range ports {
		e.lit(PortEnvName(p.Name), strconv.Itoa(int(p.Port)))
	}
	if pi := rules.AgentRuntimePrimaryFacade(ar.Spec.Facades); pi >= 0 {
		primary := &ar.Spec.Facades[pi]
		t := rules.AgentRuntimeFacadeType(primary)
		e.lit(EnvFacadeType, string(t))
		// A custom container receives neither drainTimeout nor clientToolTimeout.
		if t != v1alpha1.AgentRuntimeFacadeTypeCustom {
			e.lit(EnvHandler, stringOr(string(primary.Handler), defaultHandler))
			e.lit(EnvDrainTimeout, drainTimeout(primary).String())
			e.lit(EnvClientToolTimeout, stringOr(primary.ClientToolTimeout, defaultClientToolTimeout))
		}
	}
	asyncEnv(e, ar, r)
	externalAuthEnv(e, ar, r)
	a2aTaskStoreEnv(e, ar)
	mediaEnv(e, ar)
	return e
}

// drainTimeout is the primary facade's drainTimeout: 30s when unset or
// unparseable (agentruntime/duration-format refuses the latter), at most
// 600s (agentruntime/drain-timeout-range warns above it), never negative.
func drainTimeout(primary *v1alpha1.AgentRuntimeFacade) time.Duration {
	d, err := time.ParseDuration(primary.DrainTimeout)
	switch {
	case primary.DrainTimeout == "" || err != nil || d < 0:
		return defaultDrainTimeout
	case d > maxDrainTimeout:
		return maxDrainTimeout
	}
	return d
}

// terminationGracePeriod is the pod's terminationGracePeriodSeconds: the
// primary facade's drain timeout plus 30s (a custom primary included).
func terminationGracePeriod(ar *v1alpha1.AgentRuntime) int64 {
	d := defaultDrainTimeout
	if pi := rules.AgentRuntimePrimaryFacade(ar.Spec.Facades); pi >= 0 {
		d = drainTimeout(&ar.Spec.Facades[pi])
	}
	return int64((d + 30*time.Second) / time.Second)
}

// asyncEnv turns async invocation on in the facade when a facade sets
// async.enabled and the operator has a queue backend. Without a backend
// nothing is set, so the async routes answer 501 and the operator never
// falls back to an in-process queue (AsyncInvocationReady reports
// QueueBackendMissing). The Redis URL comes from the operator's Secret copy
// (key url) when there is one, else it is the literal URL.
func asyncEnv(e envSet, ar *v1alpha1.AgentRuntime, r *Resolved) {
	q := r.AsyncQueue
	if q == nil || (q.SecretName == "" && q.URL == "") {
		return
	}
	for i := range ar.Spec.Facades {
		a := ar.Spec.Facades[i].Async
		if a == nil || !a.Enabled {
			continue
		}
		e.lit(EnvAsyncEnabled, "true")
		e.lit(EnvAsyncWorkers, strconv.Itoa(int(int32Or(a.Workers, 1))))
		if q.SecretName != "" {
			e.secret(EnvAsyncRedisURL, q.SecretName, RedisURLSecretKey)
		} else {
			e.lit(EnvAsyncRedisURL, q.URL)
		}
		e.litIf(EnvAsyncRedisKeyPrefix, q.KeyPrefix)
		return
	}
}

// a2aTaskStoreEnv gives the facade a redis A2A task store's URL, which the
// pod cannot read from a Secret itself: redisSecretRef's url key wins over
// redisURL. A memory store needs nothing.
func a2aTaskStoreEnv(e envSet, ar *v1alpha1.AgentRuntime) {
	for i := range ar.Spec.Facades {
		a := rules.AgentRuntimeFacadeA2A(&ar.Spec.Facades[i])
		if a == nil || a.TaskStore == nil || a.TaskStore.Type != "redis" {
			continue
		}
		e.lit(EnvA2ATaskStore, "redis")
		switch {
		case a.TaskStore.RedisSecretRef != nil:
			e.secret(EnvA2ATaskStoreURL, a.TaskStore.RedisSecretRef.Name, RedisURLSecretKey)
		default:
			e.litIf(EnvA2ATaskStoreURL, a.TaskStore.RedisURL)
		}
		return
	}
}
