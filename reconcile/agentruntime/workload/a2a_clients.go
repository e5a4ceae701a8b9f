package workload

import (
	"encoding/json"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// The agent's A2A clients (agentruntime.md § a2aClients), delivered to the
// runtime: OMNIA_A2A_CLIENTS lists every resolved client as JSON, and a
// client's authentication.secretRef is mounted as a file, read on every
// call, so a rotated Secret takes effect once the kubelet syncs it. The
// Secret source is optional: "A missing Secret does not hold the pod: each
// call to the agent fails until it exists." The file is named by the
// client's index, since a client name is free text.
const (
	EnvA2AClients       = "OMNIA_A2A_CLIENTS"
	VolumeA2ATokens     = "omnia-a2a-tokens"
	A2ATokensMountPath  = "/etc/omnia/a2a-tokens"
	a2aClientSecretKey  = "token"
	a2aDelegationPrefix = "agent-facade:"
)

// A2AClientConfig is one entry of OMNIA_A2A_CLIENTS.
type A2AClientConfig struct {
	Name          string `json:"name"`
	URL           string `json:"url"`
	ExposeAsTools bool   `json:"exposeAsTools"`
	Timeout       string `json:"timeout,omitempty"`
	// TokenFile holds the bearer token (authentication.secretRef's token
	// key); absent file or empty token: each call fails.
	TokenFile string `json:"tokenFile,omitempty"`
	// DelegationAudience is set for an agentRuntimeRef target: the
	// audience of the X-Omnia-Delegation token each call requests. A url
	// target is never sent one.
	DelegationAudience string `json:"delegationAudience,omitempty"`
}

// a2aClientConfigs pairs each resolved client with its spec entry.
func a2aClientConfigs(ar *v1alpha1.AgentRuntime, r *Resolved) ([]A2AClientConfig, []corev1.VolumeProjection) {
	if len(r.A2AClients) == 0 {
		return nil, nil
	}
	spec, _ := rules.AgentRuntimeA2AClients(ar)
	byName := make(map[string]*v1alpha1.AgentRuntimeA2AClient, len(spec))
	for i := range spec {
		byName[spec[i].Name] = &spec[i]
	}
	var out []A2AClientConfig
	var tokens []corev1.VolumeProjection
	for i, rc := range r.A2AClients {
		c := A2AClientConfig{Name: rc.Name, URL: rc.URL}
		if s := byName[rc.Name]; s != nil {
			c.ExposeAsTools, c.Timeout = s.ExposeAsTools, s.Timeout
			if s.AgentRuntimeRef != nil {
				c.DelegationAudience = a2aDelegationPrefix + ar.Namespace + "/" + s.AgentRuntimeRef.Name
			}
			if a := s.Authentication; a != nil && a.SecretRef != nil && a.SecretRef.Name != "" {
				file := strconv.Itoa(i) + ".token"
				c.TokenFile = A2ATokensMountPath + "/" + file
				tokens = append(tokens, corev1.VolumeProjection{Secret: &corev1.SecretProjection{
					LocalObjectReference: corev1.LocalObjectReference{Name: a.SecretRef.Name},
					Items:                []corev1.KeyToPath{{Key: a2aClientSecretKey, Path: file}},
					Optional:             ptrBool(true),
				}})
			}
		}
		out = append(out, c)
	}
	return out, tokens
}

// a2aClientsEnv sets OMNIA_A2A_CLIENTS when a client resolved.
func a2aClientsEnv(e envSet, ar *v1alpha1.AgentRuntime, r *Resolved) {
	cfgs, _ := a2aClientConfigs(ar, r)
	if len(cfgs) == 0 {
		return
	}
	if data, err := json.Marshal(cfgs); err == nil { // plain strings always marshal
		e.lit(EnvA2AClients, string(data))
	}
}

// a2aTokenVolume is the projected volume of the clients' token Secrets;
// nil when no resolved client authenticates.
func a2aTokenVolume(ar *v1alpha1.AgentRuntime, r *Resolved) *corev1.Volume {
	_, tokens := a2aClientConfigs(ar, r)
	if len(tokens) == 0 {
		return nil
	}
	return &corev1.Volume{Name: VolumeA2ATokens, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: ptrInt32(0o440), Sources: tokens}}}
}

func ptrBool(v bool) *bool { return &v }
