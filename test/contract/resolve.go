package contract

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Environment the harness adds to every resolved container (never set by
// the operator): the probe runs on the host, so it is told where the
// container's root is, which API server stands in for the in-cluster
// Service and the CA that server's certificate chains to.
const (
	EnvRoot      = "CONTRACT_ROOT"
	EnvAPIServer = "CONTRACT_API_SERVER"
	EnvCA        = "CONTRACT_CA"
)

// ServiceAccountMountPath is where a Kubernetes client looks for its
// ServiceAccount token, ca.crt and namespace.
const ServiceAccountMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"

// defaultTokenSeconds is the kubelet's default lifetime for a projected
// token without expirationSeconds.
const defaultTokenSeconds = 3600

// harnessDir is where, under root, Resolve writes what the harness (not
// the pod) provides: the API server's CA.
const harnessDir = ".contract"

// APIServer is the API server the probe talks to in place of the
// in-cluster kubernetes Service.
type APIServer struct {
	// Host is the server's URL (rest.Config.Host).
	Host string
	// CAData is the CA its serving certificate chains to.
	CAData []byte
}

// APIServerOf is the APIServer of cfg.
func APIServerOf(cfg *rest.Config) APIServer {
	return APIServer{Host: cfg.Host, CAData: cfg.CAData}
}

// Resolved is one container of a pod as the kubelet would start it.
type Resolved struct {
	// Root is the directory the container's absolute paths are mapped
	// under: mountPath /etc/x is Root+"/etc/x".
	Root string
	// Env is the container's environment as KEY=value, sorted by name,
	// plus CONTRACT_ROOT (and CONTRACT_API_SERVER, CONTRACT_CA when an
	// APIServer was given).
	Env []string
	// Files are the container paths (not host paths) of every file
	// written, sorted.
	Files []string
	// TokenPath is the host path of the ServiceAccount token when the
	// container mounts one at ServiceAccountMountPath, else "".
	TokenPath string
	// Tokens are the TokenRequests made, one per projected token, by the
	// container path of the file each was written to.
	Tokens map[string]TokenInfo
	// Unsupported are the pod's volumes of a kind the harness does not
	// materialise (hostPath, PVC, CSI, …) and the container does not
	// mount, as "name (kind)".
	Unsupported []string
}

// TokenInfo is what one projected serviceAccountToken was requested with.
type TokenInfo struct {
	ServiceAccount    string
	Audiences         []string
	ExpirationSeconds int64
	BoundPod          string
}

// Lookup is the value of name in r.Env.
func (r *Resolved) Lookup(name string) (string, bool) {
	for _, kv := range r.Env {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v, true
		}
	}
	return "", false
}

// HostPath maps a container path to the host path under Root.
func (r *Resolved) HostPath(containerPath string) string {
	return filepath.Join(r.Root, filepath.FromSlash(containerPath))
}

// Remove deletes Root, first making every directory writable again (a
// read-only mount's directories are 0555).
func (r *Resolved) Remove() error {
	return RemoveRoot(r.Root)
}

// RemoveRoot deletes a root Resolve wrote, read-only directories included.
func RemoveRoot(root string) error {
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	return os.RemoveAll(root)
}

// file is one file of a volume: its path relative to the volume's root.
type file struct {
	rel  string
	data []byte
}

// resolver holds one Resolve's inputs.
type resolver struct {
	cs  kubernetes.Interface
	pod *corev1.Pod
	// tokens collects the TokenRequests made, by container path.
	tokens map[string]TokenInfo
}

// Resolve resolves container of pod as a kubelet would before starting
// it: its environment (env and envFrom, with Secrets and ConfigMaps read
// from the API server and the downward API from pod), and every volume it
// mounts written under root (a fresh or empty directory), projected
// ServiceAccount tokens being real TokenRequests bound to the pod. api,
// when its Host is set, is given to the container as CONTRACT_API_SERVER
// and CONTRACT_CA (the CA written under root/.contract). An error is what
// would keep the kubelet from starting the container: a missing
// non-optional Secret, ConfigMap or key, a mount of a missing or
// unsupported volume, an unsupported field.
func Resolve(ctx context.Context, cs kubernetes.Interface, api APIServer, pod *corev1.Pod, container, root string) (*Resolved, error) {
	c := findContainer(pod, container)
	if c == nil {
		return nil, fmt.Errorf("contract: pod %s/%s has no container %q", pod.Namespace, pod.Name, container)
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(root); err != nil {
		return nil, err
	} else if len(entries) > 0 {
		return nil, fmt.Errorf("contract: root %s is not empty: resolve into a fresh directory", root)
	}
	rv := &resolver{cs: cs, pod: pod, tokens: map[string]TokenInfo{}}
	env, err := rv.env(ctx, c)
	if err != nil {
		return nil, err
	}
	out := &Resolved{Root: root, Tokens: rv.tokens}
	env = append(env, EnvRoot+"="+root)
	if api.Host != "" {
		env = append(env, EnvAPIServer+"="+api.Host)
		if len(api.CAData) > 0 {
			ca := filepath.Join(root, harnessDir, "ca.crt")
			if err := os.MkdirAll(filepath.Dir(ca), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(ca, api.CAData, 0o644); err != nil {
				return nil, err
			}
			env = append(env, EnvCA+"="+ca)
		}
	}
	sort.Strings(env)
	out.Env = env

	files, readOnly, err := rv.mounts(ctx, c, root)
	if err != nil {
		return nil, err
	}
	out.Files = files
	out.Unsupported = unsupportedVolumes(pod, c)
	if slices.Contains(files, ServiceAccountMountPath+"/token") {
		out.TokenPath = out.HostPath(ServiceAccountMountPath + "/token")
	}
	// Read-only last: a read-only mount may hold another mount point.
	for _, dir := range readOnly {
		if err := makeReadOnly(dir); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func findContainer(pod *corev1.Pod, name string) *corev1.Container {
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			return &pod.Spec.Containers[i]
		}
	}
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == name {
			return &pod.Spec.InitContainers[i]
		}
	}
	return nil
}

// env is the container's environment: envFrom sources first, then env
// (which wins), with $(VAR) references expanded against what came before,
// as the kubelet does.
func (rv *resolver) env(ctx context.Context, c *corev1.Container) ([]string, error) {
	vals := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := vals[k]; !ok {
			order = append(order, k)
		}
		vals[k] = v
	}
	for i, from := range c.EnvFrom {
		data, err := rv.envFromSource(ctx, from)
		if err != nil {
			return nil, fmt.Errorf("contract: container %s envFrom[%d]: %w", c.Name, i, err)
		}
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			name := from.Prefix + k
			// The kubelet skips (and reports) keys that are not valid
			// variable names.
			if len(validation.IsEnvVarName(name)) > 0 {
				continue
			}
			set(name, data[k])
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			set(e.Name, expand(e.Value, vals))
			continue
		}
		v, ok, err := rv.envValueFrom(ctx, e.ValueFrom)
		if err != nil {
			return nil, fmt.Errorf("contract: container %s env %s: %w", c.Name, e.Name, err)
		}
		if ok {
			set(e.Name, v)
		}
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+vals[k])
	}
	return out, nil
}

// expand replaces $(NAME) by NAME's value when NAME is defined, leaves an
// undefined reference as written, and turns $$ into $ (the kubelet's
// expansion).
func expand(s string, vals map[string]string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+2 : i+2+end]
			if v, ok := vals[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+3+end])
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}

func (rv *resolver) envFromSource(ctx context.Context, from corev1.EnvFromSource) (map[string]string, error) {
	switch {
	case from.ConfigMapRef != nil:
		cm, err := rv.configMap(ctx, from.ConfigMapRef.Name, optional(from.ConfigMapRef.Optional))
		if err != nil || cm == nil {
			return nil, err
		}
		return cm.Data, nil
	case from.SecretRef != nil:
		s, err := rv.secret(ctx, from.SecretRef.Name, optional(from.SecretRef.Optional))
		if err != nil || s == nil {
			return nil, err
		}
		out := map[string]string{}
		for k, v := range s.Data {
			out[k] = string(v)
		}
		return out, nil
	}
	return nil, errors.New("neither configMapRef nor secretRef")
}

// envValueFrom is one valueFrom: its value, and false when it is unset
// (an optional source that is missing).
func (rv *resolver) envValueFrom(ctx context.Context, from *corev1.EnvVarSource) (string, bool, error) {
	switch {
	case from.SecretKeyRef != nil:
		ref := from.SecretKeyRef
		opt := optional(ref.Optional)
		s, err := rv.secret(ctx, ref.Name, opt)
		if err != nil || s == nil {
			return "", false, err
		}
		v, ok := s.Data[ref.Key]
		if !ok {
			if opt {
				return "", false, nil
			}
			return "", false, fmt.Errorf("key %q not in Secret %s/%s", ref.Key, rv.pod.Namespace, ref.Name)
		}
		return string(v), true, nil
	case from.ConfigMapKeyRef != nil:
		ref := from.ConfigMapKeyRef
		opt := optional(ref.Optional)
		cm, err := rv.configMap(ctx, ref.Name, opt)
		if err != nil || cm == nil {
			return "", false, err
		}
		v, ok := cm.Data[ref.Key]
		if !ok {
			if b, bok := cm.BinaryData[ref.Key]; bok {
				return string(b), true, nil
			}
			if opt {
				return "", false, nil
			}
			return "", false, fmt.Errorf("key %q not in ConfigMap %s/%s", ref.Key, rv.pod.Namespace, ref.Name)
		}
		return v, true, nil
	case from.FieldRef != nil:
		v, err := fieldValue(rv.pod, from.FieldRef.FieldPath)
		return v, err == nil, err
	case from.ResourceFieldRef != nil:
		return "", false, fmt.Errorf("resourceFieldRef %s is not supported by the harness", from.ResourceFieldRef.Resource)
	}
	return "", false, errors.New("valueFrom names no source")
}

func optional(p *bool) bool { return p != nil && *p }

// secret reads a Secret of the pod's namespace: nil (no error) when it is
// missing and optional.
func (rv *resolver) secret(ctx context.Context, name string, opt bool) (*corev1.Secret, error) {
	s, err := rv.cs.CoreV1().Secrets(rv.pod.Namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err) && opt:
		return nil, nil
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("secret %s/%s not found", rv.pod.Namespace, name)
	case err != nil:
		return nil, fmt.Errorf("reading Secret %s/%s: %w", rv.pod.Namespace, name, err)
	}
	return s, nil
}

// configMap reads a ConfigMap of the pod's namespace: nil (no error) when
// it is missing and optional.
func (rv *resolver) configMap(ctx context.Context, name string, opt bool) (*corev1.ConfigMap, error) {
	cm, err := rv.cs.CoreV1().ConfigMaps(rv.pod.Namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err) && opt:
		return nil, nil
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("configmap %s/%s not found", rv.pod.Namespace, name)
	case err != nil:
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", rv.pod.Namespace, name, err)
	}
	return cm, nil
}

// fieldValue is a downward API field of the pod.
func fieldValue(pod *corev1.Pod, fieldPath string) (string, error) {
	if k, ok := subscript(fieldPath, "metadata.labels"); ok {
		return pod.Labels[k], nil
	}
	if k, ok := subscript(fieldPath, "metadata.annotations"); ok {
		return pod.Annotations[k], nil
	}
	switch fieldPath {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "metadata.labels":
		return formatMap(pod.Labels), nil
	case "metadata.annotations":
		return formatMap(pod.Annotations), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.podIP":
		return pod.Status.PodIP, nil
	case "status.hostIP":
		return pod.Status.HostIP, nil
	}
	return "", fmt.Errorf("fieldRef %q is not supported by the harness", fieldPath)
}

// subscript parses prefix['key'].
func subscript(fieldPath, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(fieldPath, prefix+"['")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, "']")
}

// formatMap is the downward API's labels/annotations file: key="value"
// lines, sorted.
func formatMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	lines := make([]string, 0, len(keys))
	for _, k := range keys {
		lines = append(lines, fmt.Sprintf("%s=%q", k, m[k]))
	}
	return strings.Join(lines, "\n")
}

// mounts writes every volume the container mounts under root. It returns
// the container paths of the files written and the host directories of
// read-only mounts.
func (rv *resolver) mounts(ctx context.Context, c *corev1.Container, root string) (files, readOnly []string, err error) {
	vols := map[string]*corev1.Volume{}
	for i := range rv.pod.Spec.Volumes {
		vols[rv.pod.Spec.Volumes[i].Name] = &rv.pod.Spec.Volumes[i]
	}
	for _, m := range c.VolumeMounts {
		v, ok := vols[m.Name]
		if !ok {
			return nil, nil, fmt.Errorf("contract: container %s mounts volume %q, which the pod does not have", c.Name, m.Name)
		}
		if !path.IsAbs(m.MountPath) {
			return nil, nil, fmt.Errorf("contract: container %s mounts %q at a relative path %q", c.Name, m.Name, m.MountPath)
		}
		host := filepath.Join(root, filepath.FromSlash(path.Clean(m.MountPath)))
		if v.EmptyDir != nil {
			if err := os.MkdirAll(host, 0o777); err != nil {
				return nil, nil, err
			}
			if m.ReadOnly {
				readOnly = append(readOnly, host)
			}
			continue
		}
		content, err := rv.volumeFiles(ctx, v, m.MountPath)
		if err != nil {
			return nil, nil, fmt.Errorf("contract: container %s volume %s: %w", c.Name, m.Name, err)
		}
		written, err := writeMount(content, m, host)
		if err != nil {
			return nil, nil, fmt.Errorf("contract: container %s volume %s: %w", c.Name, m.Name, err)
		}
		files = append(files, written...)
		if m.ReadOnly {
			readOnly = append(readOnly, host)
		}
	}
	sort.Strings(files)
	return files, readOnly, nil
}

// writeMount writes a volume's files at host, honouring subPath: a subPath
// naming a file puts that file at the mount path; one naming a directory
// puts its files there.
func writeMount(content []file, m corev1.VolumeMount, host string) ([]string, error) {
	sub := path.Clean(m.SubPath)
	if m.SubPathExpr != "" {
		return nil, errors.New("subPathExpr is not supported by the harness")
	}
	var written []string
	if m.SubPath != "" {
		for _, f := range content {
			if f.rel == sub {
				if err := writeFile(host, f.data); err != nil {
					return nil, err
				}
				return []string{path.Clean(m.MountPath)}, nil
			}
		}
		var under []file
		for _, f := range content {
			if rel, ok := strings.CutPrefix(f.rel, sub+"/"); ok {
				under = append(under, file{rel: rel, data: f.data})
			}
		}
		content = under
	}
	if err := os.MkdirAll(host, 0o755); err != nil {
		return nil, err
	}
	for _, f := range content {
		if err := writeFile(filepath.Join(host, filepath.FromSlash(f.rel)), f.data); err != nil {
			return nil, err
		}
		written = append(written, path.Join(path.Clean(m.MountPath), f.rel))
	}
	return written, nil
}

func writeFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// makeReadOnly makes the files under dir 0444 and its directories 0555,
// innermost first.
func makeReadOnly(dir string) error {
	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
			return nil
		}
		return os.Chmod(p, 0o444)
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chmod(dirs[i], 0o555); err != nil {
			return err
		}
	}
	return nil
}

// volumeFiles are the files a volume holds. mountPath names where tokens
// go in Resolved.Tokens.
func (rv *resolver) volumeFiles(ctx context.Context, v *corev1.Volume, mountPath string) ([]file, error) {
	switch {
	case v.ConfigMap != nil:
		return rv.configMapFiles(ctx, v.ConfigMap.Name, v.ConfigMap.Items, optional(v.ConfigMap.Optional))
	case v.Secret != nil:
		return rv.secretFiles(ctx, v.Secret.SecretName, v.Secret.Items, optional(v.Secret.Optional))
	case v.DownwardAPI != nil:
		return downwardFiles(rv.pod, v.DownwardAPI.Items)
	case v.Projected != nil:
		var out []file
		for i, src := range v.Projected.Sources {
			var fs []file
			var err error
			switch {
			case src.ServiceAccountToken != nil:
				fs, err = rv.tokenFile(ctx, src.ServiceAccountToken, mountPath)
			case src.ConfigMap != nil:
				fs, err = rv.configMapFiles(ctx, src.ConfigMap.Name, src.ConfigMap.Items, optional(src.ConfigMap.Optional))
			case src.Secret != nil:
				fs, err = rv.secretFiles(ctx, src.Secret.Name, src.Secret.Items, optional(src.Secret.Optional))
			case src.DownwardAPI != nil:
				fs, err = downwardFiles(rv.pod, src.DownwardAPI.Items)
			default:
				err = errors.New("a projected source the harness does not support (clusterTrustBundle, podCertificate)")
			}
			if err != nil {
				return nil, fmt.Errorf("projected source %d: %w", i, err)
			}
			out = append(out, fs...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("volume %s is of a kind the harness does not support (%s)", v.Name, volumeKind(v))
}

func (rv *resolver) configMapFiles(ctx context.Context, name string, items []corev1.KeyToPath, opt bool) ([]file, error) {
	cm, err := rv.configMap(ctx, name, opt)
	if err != nil || cm == nil {
		return nil, err
	}
	data := map[string][]byte{}
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	for k, v := range cm.BinaryData {
		data[k] = v
	}
	return keyFiles(data, items, opt, "ConfigMap "+rv.pod.Namespace+"/"+name)
}

func (rv *resolver) secretFiles(ctx context.Context, name string, items []corev1.KeyToPath, opt bool) ([]file, error) {
	s, err := rv.secret(ctx, name, opt)
	if err != nil || s == nil {
		return nil, err
	}
	return keyFiles(s.Data, items, opt, "Secret "+rv.pod.Namespace+"/"+name)
}

// keyFiles is a ConfigMap's or Secret's data as files: every key, or the
// items asked for (a missing key is an error unless the source is
// optional).
func keyFiles(data map[string][]byte, items []corev1.KeyToPath, opt bool, what string) ([]file, error) {
	var out []file
	if len(items) == 0 {
		for k, v := range data {
			out = append(out, file{rel: k, data: v})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
		return out, nil
	}
	for _, it := range items {
		v, ok := data[it.Key]
		if !ok {
			if opt {
				continue
			}
			return nil, fmt.Errorf("key %q not in %s", it.Key, what)
		}
		rel, err := relPath(it.Path)
		if err != nil {
			return nil, err
		}
		out = append(out, file{rel: rel, data: v})
	}
	return out, nil
}

func relPath(p string) (string, error) {
	c := path.Clean(p)
	if path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("item path %q leaves the volume", p)
	}
	return c, nil
}

func downwardFiles(pod *corev1.Pod, items []corev1.DownwardAPIVolumeFile) ([]file, error) {
	out := make([]file, 0, len(items))
	for _, it := range items {
		rel, err := relPath(it.Path)
		if err != nil {
			return nil, err
		}
		if it.ResourceFieldRef != nil {
			return nil, fmt.Errorf("downwardAPI %s: resourceFieldRef is not supported by the harness", it.Path)
		}
		if it.FieldRef == nil {
			return nil, fmt.Errorf("downwardAPI %s names no field", it.Path)
		}
		v, err := fieldValue(pod, it.FieldRef.FieldPath)
		if err != nil {
			return nil, fmt.Errorf("downwardAPI %s: %w", it.Path, err)
		}
		out = append(out, file{rel: rel, data: []byte(v)})
	}
	return out, nil
}

// tokenFile is a real TokenRequest for the pod's ServiceAccount, with the
// projection's audience (none: the API server's own) and lifetime, bound
// to the pod.
func (rv *resolver) tokenFile(ctx context.Context, p *corev1.ServiceAccountTokenProjection, mountPath string) ([]file, error) {
	rel, err := relPath(p.Path)
	if err != nil {
		return nil, err
	}
	sa := rv.pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	seconds := int64(defaultTokenSeconds)
	if p.ExpirationSeconds != nil {
		seconds = *p.ExpirationSeconds
	}
	var aud []string
	if p.Audience != "" {
		aud = []string{p.Audience}
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		Audiences:         aud,
		ExpirationSeconds: &seconds,
		BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: rv.pod.Name, UID: rv.pod.UID},
	}}
	got, err := rv.cs.CoreV1().ServiceAccounts(rv.pod.Namespace).CreateToken(ctx, sa, tr, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("TokenRequest for ServiceAccount %s/%s (audience %q): %w", rv.pod.Namespace, sa, p.Audience, err)
	}
	if got.Status.Token == "" {
		return nil, fmt.Errorf("TokenRequest for ServiceAccount %s/%s returned no token", rv.pod.Namespace, sa)
	}
	rv.tokens[path.Join(path.Clean(mountPath), rel)] = TokenInfo{ServiceAccount: sa, Audiences: aud, ExpirationSeconds: seconds, BoundPod: rv.pod.Name}
	return []file{{rel: rel, data: []byte(got.Status.Token)}}, nil
}

// unsupportedVolumes are the pod's volumes the harness cannot write that c
// does not mount.
func unsupportedVolumes(pod *corev1.Pod, c *corev1.Container) []string {
	mounted := map[string]bool{}
	for _, m := range c.VolumeMounts {
		mounted[m.Name] = true
	}
	var out []string
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if k := volumeKind(v); !supported(k) && !mounted[v.Name] {
			out = append(out, v.Name+" ("+k+")")
		}
	}
	return out
}

func supported(kind string) bool {
	switch kind {
	case "configMap", "secret", "projected", "downwardAPI", "emptyDir":
		return true
	}
	return false
}

func volumeKind(v *corev1.Volume) string {
	s := v.VolumeSource
	switch {
	case s.ConfigMap != nil:
		return "configMap"
	case s.Secret != nil:
		return "secret"
	case s.Projected != nil:
		return "projected"
	case s.DownwardAPI != nil:
		return "downwardAPI"
	case s.EmptyDir != nil:
		return "emptyDir"
	case s.HostPath != nil:
		return "hostPath"
	case s.PersistentVolumeClaim != nil:
		return "persistentVolumeClaim"
	case s.CSI != nil:
		return "csi"
	case s.Ephemeral != nil:
		return "ephemeral"
	case s.Image != nil:
		return "image"
	}
	return "other"
}
