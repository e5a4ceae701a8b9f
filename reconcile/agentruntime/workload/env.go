package workload

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// envSet is the environment the operator sets on one container, by name.
// Building it as a map makes a second set of the same name a replacement,
// and sorted() gives it in name order, so the container's env does not
// depend on the order the builder visited the spec in.
type envSet map[string]corev1.EnvVar

// lit sets name to a literal value. An empty value is still an entry: the
// spec's empty OMNIA_SESSION_* values must override any envFrom source.
func (e envSet) lit(name, value string) { e[name] = corev1.EnvVar{Name: name, Value: value} }

// litIf sets name only when value is not empty.
func (e envSet) litIf(name, value string) {
	if value != "" {
		e.lit(name, value)
	}
}

// secret sets name from key of the Secret secretName in the pod's namespace.
func (e envSet) secret(name, secretName, key string) {
	e[name] = corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
		SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: secretName}, Key: key},
	}}
}

// field sets name from a field of the pod (the downward API).
func (e envSet) field(name, path string) {
	e[name] = corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: path},
	}}
}

func (e envSet) sorted() []corev1.EnvVar {
	out := make([]corev1.EnvVar, 0, len(e))
	for _, v := range e {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b corev1.EnvVar) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// DroppedEnv is a reserved key dropped from one of the agent's extraEnv
// lists: the controller reports it on the ReservedEnvClean condition.
type DroppedEnv struct {
	// Field is the entry's path, e.g. spec.runtime.extraEnv[2].name.
	Field string
	// Name is the reserved key.
	Name string
}

// withoutReserved returns env without the keys rules.AgentRuntimeReservedEnvKey
// reserves (the decision the admission rule agentruntime/reserved-env-key
// makes), and the entries it dropped, with path naming the list.
func withoutReserved(path *field.Path, env []corev1.EnvVar) (kept []corev1.EnvVar, dropped []DroppedEnv) {
	for i := range env {
		if rules.AgentRuntimeReservedEnvKey(env[i].Name) {
			dropped = append(dropped, DroppedEnv{Field: path.Index(i).Child("name").String(), Name: env[i].Name})
			continue
		}
		kept = append(kept, env[i])
	}
	return kept, dropped
}

// shadowReserved sets every reserved key (rules.AgentRuntimeReservedEnvKeys)
// the operator did not set to an explicit empty value, when the container
// reads podOverrides.extraEnvFrom: Kubernetes prefers env over envFrom, so
// a ConfigMap or Secret naming a reserved key is overridden
// (agentruntime.md: "is overridden") and cannot switch on compile mode,
// stamp a dev session or turn on idle renewal. Without envFrom nothing
// can supply one, and the env is left as it is.
func shadowReserved(e envSet, envFrom []corev1.EnvFromSource) envSet {
	if len(envFrom) == 0 {
		return e
	}
	for _, k := range rules.AgentRuntimeReservedEnvKeys() {
		if _, set := e[k]; !set {
			e.lit(k, "")
		}
	}
	return e
}

// containerEnv is a container's env: the operator's entries in name order,
// then the user's lists (already free of reserved keys) in the order the
// spec applies them (the container's own extraEnv, then
// podOverrides.extraEnv, "appended").
//
// The spec says user lists are appended, and in a container's environment
// the last entry of a name wins; but a Deployment applied with two entries
// of one name is refused by server-side apply (env is a map keyed by name).
// So each name appears once, with the value that would have won: the last
// user entry of a name, at that entry's position (a $(VAR) reference in it
// still sees every variable before it), and a user entry replaces the
// operator's entry of the same name. Reserved keys never get here, so a user
// cannot displace OMNIA_PACK_MODE or the OMNIA_SESSION_* entries.
func containerEnv(operator envSet, user ...[]corev1.EnvVar) []corev1.EnvVar {
	var all []corev1.EnvVar
	for _, l := range user {
		all = append(all, l...)
	}
	last := make(map[string]int, len(all))
	for i := range all {
		last[all[i].Name] = i
	}
	out := make([]corev1.EnvVar, 0, len(operator)+len(last))
	for _, v := range operator.sorted() {
		if _, overridden := last[v.Name]; !overridden {
			out = append(out, v)
		}
	}
	for i := range all {
		if last[all[i].Name] == i {
			out = append(out, *all[i].DeepCopy())
		}
	}
	return out
}

// envNameOf turns a lower-case, '-'-separated name (a provider entry's
// logical name, a port name) into the upper-case, '_'-separated form used
// inside an environment variable name. Provider names match
// ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$, so the mapping is one-to-one.
func envNameOf(s string) string {
	return strings.ToUpper(strings.ReplaceAll(s, "-", "_"))
}

// ReservedEnvDropped lists the reserved keys the agent's extraEnv lists
// name, which Deployment drops: the controller reports them on
// ReservedEnvClean also when it builds no Deployment (held back by a quota
// or a failed reference).
func ReservedEnvDropped(ar *v1alpha1.AgentRuntime) []DroppedEnv {
	_, _, _, dropped := userEnv(ar)
	return dropped
}
