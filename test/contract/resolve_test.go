package contract

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

// The resolver's own cases, against a fake clientset: only env, ConfigMap,
// Secret and downward API resolution (no TokenRequest: the cluster test
// makes real ones).

const ns = "team-a"

func objects() []any {
	return []any{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "creds"}, Data: map[string][]byte{"token": []byte("s3cret"), "user": []byte("bob")}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings"}, Data: map[string]string{"mode": "fast", "level": "3", "bad-key": "x"}},
	}
}

func testPod(c corev1.Container, vols ...corev1.Volume) *corev1.Pod {
	c.Name = "app"
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pod-1", UID: types.UID("uid-1"),
			Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"note": "hi"}},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{c}, Volumes: vols, NodeName: "node-0", ServiceAccountName: "sa"},
		Status: corev1.PodStatus{HostIP: "10.0.0.1"},
	}
}

func resolveFake(t *testing.T, pod *corev1.Pod) (*Resolved, error) {
	t.Helper()
	var objs []any = objects()
	cs := fake.NewClientset()
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Secret:
			if _, err := cs.CoreV1().Secrets(ns).Create(context.Background(), o, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		case *corev1.ConfigMap:
			if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), o, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	root := filepath.Join(t.TempDir(), "root")
	r, err := Resolve(context.Background(), cs, APIServer{}, pod, "app", root)
	t.Cleanup(func() { _ = RemoveRoot(root) })
	return r, err
}

func secretKey(name, key string, opt bool) *corev1.EnvVarSource {
	return &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key, Optional: ptr.To(opt)}}
}

func configMapKey(name, key string, opt bool) *corev1.EnvVarSource {
	return &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key, Optional: ptr.To(opt)}}
}

func field(path string) *corev1.EnvVarSource {
	return &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}
}

func TestResolveEnv(t *testing.T) {
	cases := []struct {
		name    string
		env     []corev1.EnvVar
		envFrom []corev1.EnvFromSource
		want    map[string]string // name → value; "<unset>" means absent
		wantErr string
	}{
		{name: "literal and expansion", env: []corev1.EnvVar{{Name: "A", Value: "x"}, {Name: "B", Value: "$(A)-$(NOPE)-$$(A)"}},
			want: map[string]string{"A": "x", "B": "x-$(NOPE)-$(A)"}},
		{name: "secretKeyRef", env: []corev1.EnvVar{{Name: "TOKEN", ValueFrom: secretKey("creds", "token", false)}},
			want: map[string]string{"TOKEN": "s3cret"}},
		{name: "secretKeyRef missing secret, optional", env: []corev1.EnvVar{{Name: "TOKEN", ValueFrom: secretKey("gone", "token", true)}},
			want: map[string]string{"TOKEN": "<unset>"}},
		{name: "secretKeyRef missing key, optional", env: []corev1.EnvVar{{Name: "TOKEN", ValueFrom: secretKey("creds", "nope", true)}},
			want: map[string]string{"TOKEN": "<unset>"}},
		{name: "secretKeyRef missing secret", env: []corev1.EnvVar{{Name: "TOKEN", ValueFrom: secretKey("gone", "token", false)}},
			wantErr: "env TOKEN: secret team-a/gone not found"},
		{name: "secretKeyRef missing key", env: []corev1.EnvVar{{Name: "TOKEN", ValueFrom: secretKey("creds", "nope", false)}},
			wantErr: `env TOKEN: key "nope" not in Secret team-a/creds`},
		{name: "configMapKeyRef", env: []corev1.EnvVar{{Name: "MODE", ValueFrom: configMapKey("settings", "mode", false)}},
			want: map[string]string{"MODE": "fast"}},
		{name: "configMapKeyRef missing, optional", env: []corev1.EnvVar{{Name: "MODE", ValueFrom: configMapKey("gone", "mode", true)}},
			want: map[string]string{"MODE": "<unset>"}},
		{name: "configMapKeyRef missing key", env: []corev1.EnvVar{{Name: "MODE", ValueFrom: configMapKey("settings", "nope", false)}},
			wantErr: `env MODE: key "nope" not in ConfigMap team-a/settings`},
		{name: "fieldRef", env: []corev1.EnvVar{
			{Name: "N", ValueFrom: field("metadata.name")}, {Name: "NS", ValueFrom: field("metadata.namespace")},
			{Name: "U", ValueFrom: field("metadata.uid")}, {Name: "L", ValueFrom: field("metadata.labels['app']")},
			{Name: "AN", ValueFrom: field("metadata.annotations['note']")}, {Name: "NODE", ValueFrom: field("spec.nodeName")},
			{Name: "SA", ValueFrom: field("spec.serviceAccountName")}, {Name: "IP", ValueFrom: field("status.podIP")},
			{Name: "HOST", ValueFrom: field("status.hostIP")}},
			want: map[string]string{"N": "pod-1", "NS": ns, "U": "uid-1", "L": "web", "AN": "hi", "NODE": "node-0", "SA": "sa", "IP": "", "HOST": "10.0.0.1"}},
		{name: "fieldRef unsupported", env: []corev1.EnvVar{{Name: "X", ValueFrom: field("spec.hostname")}},
			wantErr: `env X: fieldRef "spec.hostname" is not supported`},
		{name: "resourceFieldRef", env: []corev1.EnvVar{{Name: "CPU", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}}}},
			wantErr: "env CPU: resourceFieldRef limits.cpu is not supported"},
		{name: "envFrom with prefix, env wins",
			envFrom: []corev1.EnvFromSource{
				{Prefix: "CFG_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}}},
				{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}}}},
			env:  []corev1.EnvVar{{Name: "CFG_mode", Value: "slow"}},
			want: map[string]string{"CFG_mode": "slow", "CFG_level": "3", "token": "s3cret", "user": "bob", "CFG_bad-key": "x"}},
		{name: "envFrom missing, optional",
			envFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "gone"}, Optional: ptr.To(true)}}},
			want:    map[string]string{"token": "<unset>"}},
		{name: "envFrom missing",
			envFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "gone"}}}},
			wantErr: "envFrom[0]: configmap team-a/gone not found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := resolveFake(t, testPod(corev1.Container{Env: tc.env, EnvFrom: tc.envFrom}))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range tc.want {
				got, ok := r.Lookup(k)
				switch {
				case want == "<unset>" && ok:
					t.Errorf("%s = %q, want it unset", k, got)
				case want != "<unset>" && (!ok || got != want):
					t.Errorf("%s = %q (set %v), want %q", k, got, ok, want)
				}
			}
			if got, _ := r.Lookup(EnvRoot); got != r.Root {
				t.Errorf("%s = %q, want %q", EnvRoot, got, r.Root)
			}
			if _, ok := r.Lookup(EnvAPIServer); ok {
				t.Errorf("%s set without an API server", EnvAPIServer)
			}
		})
	}
}

func TestResolveVolumes(t *testing.T) {
	cmVol := func(name string, items []corev1.KeyToPath, opt bool) corev1.Volume {
		return corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: name}, Items: items, Optional: ptr.To(opt)}}}
	}
	secretVol := func(name string, opt bool) corev1.Volume {
		return corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name, Optional: ptr.To(opt)}}}
	}
	downward := func(path string) corev1.Volume {
		return corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{
			{Path: "name", FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}}}}
	}
	mount := func(path string, ro bool) []corev1.VolumeMount {
		return []corev1.VolumeMount{{Name: "v", MountPath: path, ReadOnly: ro}}
	}
	cases := []struct {
		name        string
		mounts      []corev1.VolumeMount
		vols        []corev1.Volume
		files       map[string]string // container path → content
		unsupported []string
		wantErr     string
	}{
		{name: "configMap, every key", mounts: mount("/etc/cfg", true), vols: []corev1.Volume{cmVol("settings", nil, false)},
			files: map[string]string{"/etc/cfg/mode": "fast", "/etc/cfg/level": "3", "/etc/cfg/bad-key": "x"}},
		{name: "configMap items", mounts: mount("/etc/cfg", false), vols: []corev1.Volume{cmVol("settings", []corev1.KeyToPath{{Key: "mode", Path: "sub/m.txt"}}, false)},
			files: map[string]string{"/etc/cfg/sub/m.txt": "fast"}},
		{name: "configMap item key missing", mounts: mount("/etc/cfg", false), vols: []corev1.Volume{cmVol("settings", []corev1.KeyToPath{{Key: "nope", Path: "n"}}, false)},
			wantErr: `volume v: key "nope" not in ConfigMap team-a/settings`},
		{name: "configMap missing, optional: an empty dir", mounts: mount("/etc/cfg", false), vols: []corev1.Volume{cmVol("gone", nil, true)},
			files: map[string]string{}},
		{name: "subPath of a key", mounts: []corev1.VolumeMount{{Name: "v", MountPath: "/etc/mode.conf", SubPath: "mode"}},
			vols: []corev1.Volume{cmVol("settings", nil, false)}, files: map[string]string{"/etc/mode.conf": "fast"}},
		{name: "secret", mounts: mount("/etc/creds", true), vols: []corev1.Volume{secretVol("creds", false)},
			files: map[string]string{"/etc/creds/token": "s3cret", "/etc/creds/user": "bob"}},
		{name: "secret missing", mounts: mount("/etc/creds", true), vols: []corev1.Volume{secretVol("gone", false)},
			wantErr: "volume v: secret team-a/gone not found"},
		{name: "downwardAPI", mounts: mount("/etc/pod", true), vols: []corev1.Volume{downward("metadata.name")},
			files: map[string]string{"/etc/pod/name": "pod-1"}},
		{name: "downwardAPI unsupported field", mounts: mount("/etc/pod", true), vols: []corev1.Volume{downward("spec.hostname")},
			wantErr: "not supported"},
		{name: "projected configMap, secret, downward", mounts: mount("/etc/all", true), vols: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}, Items: []corev1.KeyToPath{{Key: "level", Path: "level"}}}},
			{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Items: []corev1.KeyToPath{{Key: "user", Path: "user"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "ns", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}},
		}}}}},
			files: map[string]string{"/etc/all/level": "3", "/etc/all/user": "bob", "/etc/all/ns": ns}},
		{name: "emptyDir", mounts: mount("/tmp", false), vols: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			files: map[string]string{}},
		{name: "unmounted hostPath is recorded", mounts: nil,
			vols:        []corev1.Volume{{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}},
			files:       map[string]string{},
			unsupported: []string{"host (hostPath)"}},
		{name: "mounted hostPath", mounts: mount("/host", false),
			vols:    []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}},
			wantErr: "does not support (hostPath)"},
		{name: "mount of a missing volume", mounts: mount("/etc/x", false), vols: nil,
			wantErr: `mounts volume "v", which the pod does not have`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := resolveFake(t, testPod(corev1.Container{VolumeMounts: tc.mounts}, tc.vols...))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for p, content := range tc.files {
				want = append(want, p)
				data, err := os.ReadFile(r.HostPath(p))
				if err != nil || string(data) != content {
					t.Errorf("%s = %q (%v), want %q", p, data, err, content)
				}
			}
			slices.Sort(want)
			if !slices.Equal(r.Files, want) {
				t.Errorf("files = %v, want %v", r.Files, want)
			}
			if !slices.Equal(r.Unsupported, tc.unsupported) {
				t.Errorf("unsupported = %v, want %v", r.Unsupported, tc.unsupported)
			}
			for _, m := range tc.mounts {
				fi, err := os.Stat(r.HostPath(m.MountPath))
				if err != nil {
					t.Fatalf("mount %s: %v", m.MountPath, err)
				}
				if fi.IsDir() {
					wantMode := os.FileMode(0o755)
					if m.ReadOnly {
						wantMode = 0o555
					} else if tc.vols[0].EmptyDir != nil {
						wantMode = 0o777 &^ currentUmask()
					}
					if fi.Mode().Perm() != wantMode {
						t.Errorf("mount %s mode = %v, want %v (readOnly %v)", m.MountPath, fi.Mode().Perm(), wantMode, m.ReadOnly)
					}
				}
			}
			if r.TokenPath != "" {
				t.Errorf("TokenPath = %q without a token mount", r.TokenPath)
			}
		})
	}
}

// currentUmask reads the process umask by creating a directory 0777.
func currentUmask() os.FileMode {
	dir, err := os.MkdirTemp("", "umask-")
	if err != nil {
		return 0o022
	}
	defer func() { _ = os.RemoveAll(dir) }()
	p := filepath.Join(dir, "d")
	if err := os.Mkdir(p, 0o777); err != nil {
		return 0o022
	}
	fi, err := os.Stat(p)
	if err != nil {
		return 0o022
	}
	return 0o777 &^ fi.Mode().Perm()
}

// TestResolveReadOnlyFiles: a read-only mount's files are 0444, a
// writable one's 0644.
func TestResolveReadOnlyFiles(t *testing.T) {
	for _, ro := range []bool{true, false} {
		r, err := resolveFake(t, testPod(corev1.Container{VolumeMounts: []corev1.VolumeMount{{Name: "v", MountPath: "/etc/creds", ReadOnly: ro}}},
			corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "creds"}}}))
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(r.HostPath("/etc/creds/token"))
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o644)
		if ro {
			want = 0o444
		}
		if fi.Mode().Perm() != want {
			t.Errorf("readOnly %v: token mode %v, want %v", ro, fi.Mode().Perm(), want)
		}
	}
}

// TestResolveRefusesAUsedRoot: resolving twice into one root would mix two
// states; Resolve refuses.
func TestResolveRefusesAUsedRoot(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Resolve(context.Background(), fake.NewClientset(), APIServer{}, testPod(corev1.Container{}), "app", root)
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("err = %v, want a refusal of the non-empty root", err)
	}
	_, err = Resolve(context.Background(), fake.NewClientset(), APIServer{}, testPod(corev1.Container{}), "nope", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `no container "nope"`) {
		t.Fatalf("err = %v, want a missing container", err)
	}
}

// TestResolveAPIServer: with an API server, the probe gets its URL and a
// CA file holding the given CA.
func TestResolveAPIServer(t *testing.T) {
	root := t.TempDir()
	r, err := Resolve(context.Background(), fake.NewClientset(), APIServer{Host: "https://127.0.0.1:6443", CAData: []byte("CA")}, testPod(corev1.Container{}), "app", root)
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := r.Lookup(EnvAPIServer); h != "https://127.0.0.1:6443" {
		t.Errorf("%s = %q", EnvAPIServer, h)
	}
	ca, _ := r.Lookup(EnvCA)
	if data, err := os.ReadFile(ca); err != nil || string(data) != "CA" {
		t.Errorf("%s %q holds %q (%v)", EnvCA, ca, data, err)
	}
}
