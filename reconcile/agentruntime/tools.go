package agentruntime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/internal/ssa"
	"github.com/altairalabs/omnia/rules"
)

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;create;patch;delete

// The agent's tools (workload/tools.go): before the Deployment, the
// controller writes <agentruntime>-tools (the rendered tools file) and
// <agentruntime>-tool-secrets (each usable handler credential, copied from
// its opted-in source Secret). A credential the rules judge unusable
// (ToolCredentialsReady False) is left out, so a deleted source removes
// the key instead of keeping the last value, and the runtime refuses that
// handler's calls. Both objects are owned by the agent; the kubelet
// refreshes their files in the running pods, so neither rolls the pods.
//
// Reads: the sources' data through the uncached Secret reader, only for
// an agent with a ToolRegistry, and the ConfigMap's metadata through the
// API reader (the manager caches no ConfigMaps: it would hold every
// ConfigMap of the cluster). Values never reach a log, an event or the
// status: errors name the Secret, never its data.

// prepareTools writes the agent's tools ConfigMap and Secret, or removes
// them when the agent has no ToolRegistry.
func (r *Reconciler) prepareTools(ctx context.Context, ar *v1alpha1.AgentRuntime, res *workload.Resolved) error {
	if res.Tools == nil {
		return r.deleteTools(ctx, ar)
	}
	data, err := r.toolSecretData(ctx, ar, res.Tools)
	if err != nil {
		return err
	}
	if err := r.writeToolSecrets(ctx, ar, data); err != nil {
		return err
	}
	file, err := workload.RenderToolsFile(res.Tools)
	if err != nil {
		return fmt.Errorf("rendering the tools file: %w", err)
	}
	return r.writeToolsConfigMap(ctx, ar, workload.ToolsConfigMap(ar, file))
}

// toolSecretData reads every usable credential's value (resolve found no
// rules.ToolCredentialProblem for it) from its source Secret.
func (r *Reconciler) toolSecretData(ctx context.Context, ar *v1alpha1.AgentRuntime, t *workload.ResolvedTools) (map[string][]byte, error) {
	data := map[string][]byte{}
	sources := map[string]*corev1.Secret{}
	for _, c := range t.Credentials {
		if !t.Usable[c.Key] {
			continue
		}
		s, ok := sources[c.SecretName]
		if !ok {
			s = &corev1.Secret{}
			err := r.secretDataReader().Get(ctx, types.NamespacedName{Namespace: ar.Namespace, Name: c.SecretName}, s)
			switch {
			case apierrors.IsNotFound(err):
				s = nil // deleted since the rules looked: left out, reported on the next pass
			case err != nil:
				return nil, fmt.Errorf("reading Secret %s/%s: %w", ar.Namespace, c.SecretName, err)
			}
			sources[c.SecretName] = s
		}
		// The opt-in is judged again on what was read, so a label removed
		// between the two reads never lets a value through.
		if s == nil || !rules.ToolCredentialOptedIn(s.Labels) {
			continue
		}
		if v, ok := s.Data[c.SecretKey]; ok {
			data[c.Key] = v
		}
	}
	return data, nil
}

// toolSecretsDigest is the digest of data salted with the agent's UID: the
// annotation that lets an unchanged copy go unwritten, never a value.
func toolSecretsDigest(ar *v1alpha1.AgentRuntime, data map[string][]byte) string {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	h.Write([]byte(ar.UID))
	for _, k := range keys {
		fmt.Fprintf(h, "\x00%d:%s%d:", len(k), k, len(data[k]))
		h.Write(data[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// writeToolSecrets applies <agentruntime>-tool-secrets unless its cached
// metadata shows the same digest, labels and owner.
func (r *Reconciler) writeToolSecrets(ctx context.Context, ar *v1alpha1.AgentRuntime, data map[string][]byte) error {
	hash := toolSecretsDigest(ar, data)
	want := workload.ToolSecrets(ar, data, hash)
	live, err := r.secretMeta(ctx, ar.Namespace, want.Name)
	if err != nil {
		return err
	}
	if live != nil && live.GetAnnotations()[workload.ToolSecretsHashAnnotation] == hash && ownedByAgent(live, ar) && hasLabels(live.GetLabels(), want.Labels) {
		return nil
	}
	// A server-side apply removes the keys this manager set before and
	// leaves out now: a credential that stopped being usable is gone from
	// the copy, not kept.
	if err := r.applier().Apply(ctx, want); err != nil {
		return fmt.Errorf("applying Secret %s: %w", want.Name, err)
	}
	return nil
}

// writeToolsConfigMap applies the tools ConfigMap unless the live one
// carries the applied hash of what would be applied now.
func (r *Reconciler) writeToolsConfigMap(ctx context.Context, ar *v1alpha1.AgentRuntime, cm *corev1.ConfigMap) error {
	hash, err := ssa.Hash(cm.DeepCopy())
	if err != nil {
		return err
	}
	live := &metav1.PartialObjectMetadata{}
	live.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	err = r.secretDataReader().Get(ctx, client.ObjectKeyFromObject(cm), live)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("reading ConfigMap %s's metadata: %w", cm.Name, err)
	case live.GetAnnotations()[ssa.HashAnnotation] == hash && ownedByAgent(live, ar):
		return nil
	}
	if _, err := ssa.Stamp(cm); err != nil {
		return err
	}
	if err := r.applier().Apply(ctx, cm); err != nil {
		return fmt.Errorf("applying ConfigMap %s: %w", cm.Name, err)
	}
	return nil
}

// deleteTools removes the agent's tools ConfigMap and Secret once it no
// longer has a ToolRegistry. The Secret (from the metadata cache) says
// whether there is anything to remove: the two are written together, so
// an agent that never had tools costs no request.
func (r *Reconciler) deleteTools(ctx context.Context, ar *v1alpha1.AgentRuntime) error {
	live, err := r.secretMeta(ctx, ar.Namespace, workload.ToolSecretsName(ar))
	if err != nil || live == nil || !ownedByAgent(live, ar) {
		return err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ar.Namespace, Name: workload.ToolsConfigMapName(ar)}}
	if err := r.client.Delete(ctx, cm); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting ConfigMap %s: %w", cm.Name, err)
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ar.Namespace, Name: live.Name}}
	if err := r.client.Delete(ctx, s, client.Preconditions{UID: &live.UID}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting Secret %s: %w", live.Name, err)
	}
	return nil
}

// secretMeta is a Secret's metadata from the cache; nil when there is none.
func (r *Reconciler) secretMeta(ctx context.Context, namespace, name string) (*metav1.PartialObjectMetadata, error) {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	err := r.secretMetaReader().Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, m)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading Secret %s's metadata: %w", name, err)
	}
	return m, nil
}
