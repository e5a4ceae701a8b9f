package rules

import (
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// AgentRuntime environment rules: the reserved OMNIA_* keys in the three
// extraEnv lists, and the OMNIA_* tuning variables the primary facade reads
// from its extraEnv at start (a bad value stops the facade from starting, so
// it is refused at the door).

// agentRuntimeReservedEnv are the keys only a controller sets: they select
// compile mode, stamp dev-session identity or switch on idle renewal.
var agentRuntimeReservedEnv = map[string]struct{}{
	"OMNIA_PACK_MODE":         {},
	"OMNIA_PACK_SOURCE_DIR":   {},
	"OMNIA_PACK_CONFIG_FILE":  {},
	"OMNIA_PACK_OUT_DIR":      {},
	"OMNIA_SESSION_TAGS":      {},
	"OMNIA_SESSION_PACK_NAME": {},
	"OMNIA_IDLE_TIMEOUT":      {},
}

// The facade's tuning variables and their bounds.
const (
	agentRuntimeEnvStreamInactivity       = "OMNIA_RUNTIME_STREAM_INACTIVITY_TIMEOUT"
	agentRuntimeEnvFunctionStreamDuration = "OMNIA_FUNCTION_STREAM_MAX_DURATION"
	agentRuntimeEnvFunctionStreamConc     = "OMNIA_FUNCTION_STREAM_MAX_CONCURRENT"

	agentRuntimeMinStreamInactivity       = 120 * time.Second
	agentRuntimeMaxFunctionStreamDuration = 290 * time.Second
)

func init() {
	Default.Register(Rule{
		ID:        "agentruntime/reserved-env-key",
		Kinds:     agentRuntimeKinds,
		Stage:     StageAdmission,
		Severity:  SeverityDeny,
		Condition: v1alpha1.AgentRuntimeConditionReservedEnvClean,
		Reason:    v1alpha1.AgentRuntimeReasonReservedEnvKey,
		Doc: "facades[].extraEnv, runtime.extraEnv and podOverrides.extraEnv must not name a reserved key (OMNIA_PACK_MODE, OMNIA_PACK_SOURCE_DIR, " +
			"OMNIA_PACK_CONFIG_FILE, OMNIA_PACK_OUT_DIR, OMNIA_SESSION_TAGS, OMNIA_SESSION_PACK_NAME, OMNIA_IDLE_TIMEOUT); on update only a key " +
			"not already in the same list is refused. The operator drops these entries from the pod and ReservedEnvClean names the key.",
		Spec:  "agentruntime.md#facades",
		Check: checkAgentRuntimeReservedEnv,
	})
	Default.Register(Rule{
		ID:       "agentruntime/stream-inactivity-timeout",
		Kinds:    agentRuntimeKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "OMNIA_RUNTIME_STREAM_INACTIVITY_TIMEOUT in the primary facade's extraEnv must be a Go duration of at least 120s " +
			"(a literal value; valueFrom is not checked); any other value stops the facade from starting.",
		Spec:  "agentruntime.md#facades",
		Check: checkAgentRuntimeStreamInactivity,
	})
	Default.Register(Rule{
		ID:       "agentruntime/function-stream-max-duration",
		Kinds:    agentRuntimeKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "In mode function, OMNIA_FUNCTION_STREAM_MAX_DURATION in the primary facade's extraEnv must be a positive Go duration of at most 290s " +
			"(a literal value; valueFrom is not checked); any other value stops the facade from starting.",
		Spec:  "agentruntime.md#facades",
		Check: checkAgentRuntimeFunctionStreamDuration,
	})
	Default.Register(Rule{
		ID:       "agentruntime/function-stream-max-concurrent",
		Kinds:    agentRuntimeKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "In mode function, OMNIA_FUNCTION_STREAM_MAX_CONCURRENT in the primary facade's extraEnv must be a positive integer " +
			"(a literal value; valueFrom is not checked); any other value stops the facade from starting.",
		Spec:  "agentruntime.md#facades",
		Check: checkAgentRuntimeFunctionStreamConcurrent,
	})
}

// agentRuntimeEnvList is one extraEnv list and the path it sits at.
type agentRuntimeEnvList struct {
	path *field.Path
	env  []corev1.EnvVar
	// old is the same list on the stored object (nil on create).
	old []corev1.EnvVar
}

// agentRuntimeEnvLists returns the three extraEnv lists the reserved keys
// are checked in, paired with the same list on old (a facade's list is
// paired with the old facade of the same type; types are unique).
func agentRuntimeEnvLists(ar, old *v1alpha1.AgentRuntime) []agentRuntimeEnvList {
	var lists []agentRuntimeEnvList
	facades := field.NewPath("spec", "facades")
	for i := range ar.Spec.Facades {
		f := &ar.Spec.Facades[i]
		if len(f.ExtraEnv) == 0 {
			continue
		}
		l := agentRuntimeEnvList{path: facades.Index(i).Child("extraEnv"), env: f.ExtraEnv}
		if old != nil {
			t := agentRuntimeFacadeType(f)
			for j := range old.Spec.Facades {
				if agentRuntimeFacadeType(&old.Spec.Facades[j]) == t {
					l.old = old.Spec.Facades[j].ExtraEnv
					break
				}
			}
		}
		lists = append(lists, l)
	}
	if ar.Spec.Runtime != nil && len(ar.Spec.Runtime.ExtraEnv) > 0 {
		l := agentRuntimeEnvList{path: field.NewPath("spec", "runtime", "extraEnv"), env: ar.Spec.Runtime.ExtraEnv}
		if old != nil && old.Spec.Runtime != nil {
			l.old = old.Spec.Runtime.ExtraEnv
		}
		lists = append(lists, l)
	}
	if ar.Spec.PodOverrides != nil && len(ar.Spec.PodOverrides.ExtraEnv) > 0 {
		l := agentRuntimeEnvList{path: field.NewPath("spec", "podOverrides", "extraEnv"), env: ar.Spec.PodOverrides.ExtraEnv}
		if old != nil && old.Spec.PodOverrides != nil {
			l.old = old.Spec.PodOverrides.ExtraEnv
		}
		lists = append(lists, l)
	}
	return lists
}

func agentRuntimeEnvHas(env []corev1.EnvVar, name string) bool {
	for i := range env {
		if env[i].Name == name {
			return true
		}
	}
	return false
}

func checkAgentRuntimeReservedEnv(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	old := agentRuntimeOf(in.Old)
	var errs field.ErrorList
	for _, l := range agentRuntimeEnvLists(ar, old) {
		for i := range l.env {
			name := l.env[i].Name
			if _, reserved := agentRuntimeReservedEnv[name]; !reserved {
				continue
			}
			// On update a key already in the same list is let through: the
			// operator drops it and ReservedEnvClean reports it.
			if old != nil && agentRuntimeEnvHas(l.old, name) {
				continue
			}
			p := l.path.Index(i).Child("name")
			errs = append(errs, field.Forbidden(p,
				name+" is reserved: only the operator sets it (it selects compile mode, stamps dev-session identity or switches on idle renewal) "+
					"and drops it from the pod; remove this entry from "+l.path.String()))
		}
	}
	return errs
}

// agentRuntimePrimaryEnv returns the primary facade's literal value for
// name and its path; ok is false when the variable is absent, empty or set
// through valueFrom (which cannot be checked). The last entry wins, as in a
// container's environment.
func agentRuntimePrimaryEnv(ar *v1alpha1.AgentRuntime, name string) (value string, p *field.Path, ok bool) {
	pi := agentRuntimePrimaryFacade(ar.Spec.Facades)
	if pi < 0 {
		return "", nil, false
	}
	env := ar.Spec.Facades[pi].ExtraEnv
	for i := len(env) - 1; i >= 0; i-- {
		if env[i].Name != name {
			continue
		}
		if env[i].ValueFrom != nil || env[i].Value == "" {
			return "", nil, false
		}
		return env[i].Value, field.NewPath("spec", "facades").Index(pi).Child("extraEnv").Index(i).Child("value"), true
	}
	return "", nil, false
}

func checkAgentRuntimeStreamInactivity(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	v, p, ok := agentRuntimePrimaryEnv(ar, agentRuntimeEnvStreamInactivity)
	if !ok {
		return nil
	}
	if d, err := time.ParseDuration(v); err != nil || d < agentRuntimeMinStreamInactivity {
		return field.ErrorList{field.Invalid(p, v,
			agentRuntimeEnvStreamInactivity+" must be a Go duration of at least 120s (e.g. 120s, 5m); the facade refuses to start with any other value. "+
				"Raise the value or remove the entry to keep the default 120s")}
	}
	return nil
}

func checkAgentRuntimeFunctionStreamDuration(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || !agentRuntimeIsFunction(ar) {
		return nil
	}
	v, p, ok := agentRuntimePrimaryEnv(ar, agentRuntimeEnvFunctionStreamDuration)
	if !ok {
		return nil
	}
	if d, err := time.ParseDuration(v); err != nil || d <= 0 || d > agentRuntimeMaxFunctionStreamDuration {
		return field.ErrorList{field.Invalid(p, v,
			agentRuntimeEnvFunctionStreamDuration+" must be a positive Go duration of at most 290s (e.g. 270s, 2m); the facade refuses to start with any other value. "+
				"Fix the value or remove the entry to keep the default 270s")}
	}
	return nil
}

func checkAgentRuntimeFunctionStreamConcurrent(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || !agentRuntimeIsFunction(ar) {
		return nil
	}
	v, p, ok := agentRuntimePrimaryEnv(ar, agentRuntimeEnvFunctionStreamConc)
	if !ok {
		return nil
	}
	if n, err := strconv.Atoi(v); err != nil || n <= 0 {
		return field.ErrorList{field.Invalid(p, v,
			agentRuntimeEnvFunctionStreamConc+" must be a positive integer (e.g. 32); the facade refuses to start with any other value. "+
				"Fix the value or remove the entry to keep the default 32")}
	}
	return nil
}
