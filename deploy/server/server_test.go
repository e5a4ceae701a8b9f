package server_test

// The deploy API against a real kube-apiserver and etcd (the Provider and
// SkillSource CRDs), read through a controller-runtime cache as the
// operator's manager reads it, served over TLS on a loopback port with a
// serving certificate made here and tokens minted here (their JWKS in a
// temporary file).

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/auth/authtest"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/deploy/server"
	"github.com/altairalabs/omnia/test/controlplane"
)

var (
	k8s      client.Client
	reader   client.Reader // the cache
	signer   = authtest.MustSigner("dashboard-1", "ES256")
	stranger = authtest.MustSigner("dashboard-1", "ES256") // same kid, unpublished key
	jwksPath string
	certs    *testCerts
	nsCount  atomic.Int32
)

func TestMain(m *testing.M) {
	env, err := controlplane.Start(controlplane.Options{Kinds: []string{"Provider", "SkillSource", "Workspace"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer func() { _ = env.Stop() }()
		scheme := runtime.NewScheme()
		must(clientgoscheme.AddToScheme(scheme))
		must(v1alpha1.AddToScheme(scheme))
		k8s, err = client.New(env.Config, client.Options{Scheme: scheme})
		must(err)
		c, err := cache.New(env.Config, cache.Options{Scheme: scheme})
		must(err)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { _ = c.Start(ctx) }()
		for _, o := range []client.Object{&v1alpha1.Provider{}, &v1alpha1.SkillSource{}, &v1alpha1.Workspace{}} {
			_, err := c.GetInformer(ctx, o)
			must(err)
		}
		if !c.WaitForCacheSync(ctx) {
			must(fmt.Errorf("cache did not sync"))
		}
		reader = c
		// The workspaces most tests use: acme's namespace is acme-ns.
		for name, ns := range map[string]string{"acme": "acme-ns", "other": "other-ns"} {
			must(k8s.Create(ctx, &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: ns}}}))
		}
		must(waitCached(ctx, "acme", "other"))
		dir, err := os.MkdirTemp("", "deploy-api-")
		must(err)
		defer func() { _ = os.RemoveAll(dir) }()
		jwksPath = filepath.Join(dir, "jwks.json")
		must(authtest.WriteJWKS(jwksPath, signer))
		certs, err = newTestCerts()
		must(err)
		return m.Run()
	}()
	os.Exit(code)
}

// waitCached waits until the cache holds the Workspaces (the API server
// has them; the informer catches up).
func waitCached(ctx context.Context, names ...string) error {
	for _, name := range names {
		var last error
		err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			last = reader.Get(ctx, client.ObjectKey{Name: name}, &v1alpha1.Workspace{})
			return last == nil, nil
		})
		if err != nil {
			return fmt.Errorf("Workspace %s not in the cache: %w (last read: %v)", name, err, last)
		}
	}
	return nil
}

// newWorkspace creates Workspace name for namespace ns and waits for the
// cache to hold it.
func newWorkspace(t *testing.T, name, ns string) {
	t.Helper()
	create(t, &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: ns}}})
	if err := waitCached(context.Background(), name); err != nil {
		t.Fatal(err)
	}
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// testCerts is a CA and a serving certificate for 127.0.0.1 it signed.
type testCerts struct {
	pool *x509.CertPool
	leaf tls.Certificate
}

func newTestCerts() (*testCerts, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "deploy-api-test-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &testCerts{pool: pool, leaf: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}}, nil
}

// api is one running deploy API.
type api struct {
	url    string
	client *http.Client
	stop   func() error
}

// start serves a deploy API built from opts (keys from the JWKS file, the
// cache as reader, unless set) on a free loopback port.
func start(t *testing.T, opts server.Options) *api {
	t.Helper()
	if opts.Verifier == nil {
		keys, err := auth.NewFileKeys(jwksPath)
		if err != nil {
			t.Fatal(err)
		}
		opts.Verifier = &auth.Verifier{Keys: keys}
	}
	if opts.Reader == nil {
		opts.Reader = reader
	}
	h, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := &server.Server{
		BindAddress:    "127.0.0.1:0",
		Handler:        h,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &certs.leaf, nil },
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	select {
	case <-srv.Ready():
	case err := <-done:
		t.Fatal(err)
	}
	var once sync.Once
	var stopErr error
	stop := func() error {
		once.Do(func() { cancel(); stopErr = <-done })
		return stopErr
	}
	t.Cleanup(func() { _ = stop() })
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: certs.pool}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &api{url: "https://" + srv.Addr().String(), client: &http.Client{Transport: tr, Timeout: time.Minute}, stop: stop}
}

// reply is one answer.
type reply struct {
	status int
	header http.Header
	body   []byte
	proto  int
}

func (a *api) do(t *testing.T, method, path, token string, body []byte) reply {
	t.Helper()
	r, err := a.try(method, path, token, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// try is do for a goroutine other than the test's: a transport error comes
// back as a reply with status 0 and the error as its body.
func (a *api) try(method, path, token string, body []byte) (reply, error) {
	req, err := http.NewRequest(method, a.url+path, bytes.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return reply{body: []byte(err.Error())}, err
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{body: []byte(err.Error())}, err
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: data, proto: resp.ProtoMajor}, nil
}

func (r reply) errorMessage(t *testing.T) string {
	t.Helper()
	var e server.ErrorBody
	if err := json.Unmarshal(r.body, &e); err != nil || e.Error == "" {
		t.Fatalf("body %q is not {\"error\": ...}: %v", r.body, err)
	}
	return e.Error
}

func token(t *testing.T, s *authtest.Signer, c auth.Claims) string {
	t.Helper()
	tok, err := s.Mint(c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func claims(subject, workspace, namespace string, role auth.Role) auth.Claims {
	return authtest.Claims(subject, workspace, namespace, role, time.Now())
}

func paths(workspace string) map[string]string {
	return map[string]string{
		http.MethodPost + " deployments": "/api/v1/workspaces/" + workspace + "/deployments",
		http.MethodPost + " plan":        "/api/v1/workspaces/" + workspace + "/deploy/plan",
		http.MethodGet + " profile":      "/api/v1/workspaces/" + workspace + "/deploy-profile",
	}
}

func methodOf(route string) string { m, _, _ := strings.Cut(route, " "); return m }

// TestUnauthenticated: every route answers 401 with WWW-Authenticate:
// Bearer and one generic message, whatever the token's fault.
func TestUnauthenticated(t *testing.T) {
	a := start(t, server.Options{})
	good := claims("alice", "acme", "acme-ns", auth.RoleOwner)
	with := func(f func(*auth.Claims)) auth.Claims { c := good; f(&c); return c }
	cases := []struct {
		name   string
		header string // the whole Authorization header
	}{
		{"no Authorization header", ""},
		{"Basic credentials", "Basic YWxpY2U6cGFzcw=="},
		{"Bearer without a token", "Bearer "},
		{"not a JWT", "Bearer abc.def"},
		{"expired", "Bearer " + token(t, signer, with(func(c *auth.Claims) { c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(-time.Hour)) }))},
		{"not yet valid", "Bearer " + token(t, signer, with(func(c *auth.Claims) { c.NotBefore = jwt.NewNumericDate(time.Now().Add(time.Hour)) }))},
		{"wrong audience", "Bearer " + token(t, signer, with(func(c *auth.Claims) { c.Audience = jwt.ClaimStrings{"omnia-dashboard"} }))},
		{"badly signed (unpublished key, published kid)", "Bearer " + token(t, stranger, good)},
	}
	var messages []string
	for _, tc := range cases {
		for route, path := range paths("acme") {
			t.Run(tc.name+"/"+route, func(t *testing.T) {
				req, err := http.NewRequest(methodOf(route), a.url+path, strings.NewReader("{}"))
				if err != nil {
					t.Fatal(err)
				}
				if tc.header != "" {
					req.Header.Set("Authorization", tc.header)
				}
				resp, err := a.client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = resp.Body.Close() }()
				data, _ := io.ReadAll(resp.Body)
				r := reply{status: resp.StatusCode, header: resp.Header, body: data}
				if r.status != http.StatusUnauthorized {
					t.Fatalf("status %d (%s), want 401", r.status, r.body)
				}
				if h := r.header.Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer") {
					t.Fatalf("WWW-Authenticate %q", h)
				}
				messages = append(messages, r.errorMessage(t))
			})
		}
	}
	for _, m := range messages {
		if m != messages[0] {
			t.Fatalf("401 messages differ (they must not say which check failed): %q vs %q", m, messages[0])
		}
	}
}

// TestForbidden: a verified token without the role, or for another
// workspace, answers 403 with one generic message.
func TestForbidden(t *testing.T) {
	a := start(t, server.Options{})
	routes := paths("acme")
	cases := []struct {
		name   string
		claims auth.Claims
		route  string
	}{
		{"viewer deploys", claims("alice", "acme", "acme-ns", auth.RoleViewer), "POST deployments"},
		{"viewer plans", claims("alice", "acme", "acme-ns", auth.RoleViewer), "POST plan"},
		{"owner of another workspace deploys", claims("alice", "other", "other-ns", auth.RoleOwner), "POST deployments"},
		{"owner of another workspace reads the profile", claims("alice", "other", "acme-ns", auth.RoleOwner), "GET profile"},
		{"no role reads the profile", claims("alice", "acme", "acme-ns", ""), "GET profile"},
		{"unknown role deploys", claims("alice", "acme", "acme-ns", "root"), "POST deployments"},
		{"no namespace reads the profile", claims("alice", "acme", "", auth.RoleOwner), "GET profile"},
	}
	var messages []string
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do(t, methodOf(tc.route), routes[tc.route], token(t, signer, tc.claims), []byte("{}"))
			if r.status != http.StatusForbidden {
				t.Fatalf("status %d (%s), want 403", r.status, r.body)
			}
			messages = append(messages, r.errorMessage(t))
		})
	}
	for _, m := range messages {
		if m != messages[0] {
			t.Fatalf("403 messages differ: %q vs %q", m, messages[0])
		}
	}
}

// TestNotImplemented: until a Deployer and a Planner are wired, their
// routes answer 501 to an authorized caller; the profile is served.
func TestNotImplemented(t *testing.T) {
	a := start(t, server.Options{})
	tok := token(t, signer, claims("alice", "acme", "acme-ns", auth.RoleEditor))
	for route, path := range paths("acme") {
		r := a.do(t, methodOf(route), path, tok, []byte("{}"))
		want := http.StatusNotImplemented
		if route == "GET profile" {
			want = http.StatusOK
		}
		if r.status != want {
			t.Fatalf("%s: status %d (%s), want %d", route, r.status, r.body, want)
		}
		if want == http.StatusNotImplemented && !strings.Contains(r.errorMessage(t), "not implemented") {
			t.Fatalf("%s: %s", route, r.body)
		}
		if r.proto != 1 {
			t.Fatalf("%s: answered over HTTP/%d; HTTP/2 must be off", route, r.proto)
		}
	}
}

func newNamespace(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("deploy-api-%d", nsCount.Add(1))
	if err := k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

func create(t *testing.T, o client.Object) {
	t.Helper()
	if err := k8s.Create(context.Background(), o); err != nil {
		t.Fatalf("creating %s: %v", o.GetName(), err)
	}
}

// TestProfile: the profile lists the token namespace's Providers and
// SkillSources, sorted, hidden ones left out, with exactly the documented
// fields — and none of the credential Secrets' values, anywhere.
func TestProfile(t *testing.T) {
	g := gomega.NewWithT(t)
	ns, otherNS := newNamespace(t), newNamespace(t)
	secrets := map[string]string{
		"claude-key":  "sk-ant-SECRET-VALUE-0001",
		"openai-key":  "sk-openai-SECRET-VALUE-0002",
		"hidden-key":  "sk-hidden-SECRET-VALUE-0003",
		"aws-creds":   "AKIA-SECRET-VALUE-0004",
		"voyage-key2": "pa-SECRET-VALUE-0005",
	}
	for name, value := range secrets {
		create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, StringData: map[string]string{"api-key": value}})
	}
	secretRef := func(name string) *v1alpha1.ProviderCredential {
		return &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: name, Key: "api-key"}}
	}
	provider := func(name string, spec v1alpha1.ProviderSpec, labels map[string]string) *v1alpha1.Provider {
		return &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}, Spec: spec}
	}
	hiddenLabel := map[string]string{server.HiddenLabel: "true"}
	create(t, provider("zeta-claude", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeClaude, Model: "claude-sonnet-4", Credential: secretRef("claude-key"),
		Headers: map[string]string{"X-Api-Key": secrets["claude-key"]}}, nil))
	create(t, provider("alpha-embed", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeOpenAI, Role: v1alpha1.ProviderRoleEmbedding, Model: "text-embedding-3-small",
		Credential: secretRef("openai-key")}, nil))
	create(t, provider("mid-mock", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock}, map[string]string{server.HiddenLabel: "false"}))
	create(t, provider("dev-hidden", v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeClaude, Model: "claude-haiku", Credential: secretRef("hidden-key")}, hiddenLabel))
	create(t, &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere", Namespace: otherNS},
		Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock}})
	skill := func(name string, typ v1alpha1.SkillSourceType, labels map[string]string) *v1alpha1.SkillSource {
		return &v1alpha1.SkillSource{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}, Spec: v1alpha1.SkillSourceSpec{Type: typ}}
	}
	create(t, skill("policies", v1alpha1.SkillSourceTypeGit, nil))
	create(t, skill("images", v1alpha1.SkillSourceTypeOCI, nil))
	create(t, skill("cm-skills", v1alpha1.SkillSourceTypeConfigMap, nil))
	create(t, skill("dev-skills", v1alpha1.SkillSourceTypeGit, hiddenLabel))
	create(t, &v1alpha1.SkillSource{ObjectMeta: metav1.ObjectMeta{Name: "other-skills", Namespace: otherNS}, Spec: v1alpha1.SkillSourceSpec{Type: v1alpha1.SkillSourceTypeGit}})

	a := start(t, server.Options{APIEndpoint: "https://omnia-operator.omnia-system.svc:9444"})
	newWorkspace(t, "profiled", ns)
	want := intent.DeployProfile{
		APIEndpoint: "https://omnia-operator.omnia-system.svc:9444",
		Workspace:   "profiled",
		Providers: []intent.ProfileProvider{
			{Name: "alpha-embed", Role: "embedding", Type: "openai", Model: "text-embedding-3-small"},
			{Name: "mid-mock", Role: "llm", Type: "mock"},
			{Name: "zeta-claude", Role: "llm", Type: "claude", Model: "claude-sonnet-4"},
		},
		Skills: []intent.ProfileSkill{
			{Name: "cm-skills", Type: "configmap"},
			{Name: "images", Type: "oci"},
			{Name: "policies", Type: "git"},
		},
		SupportedDeployIntentVersions: []string{"deploy.omnia.altairalabs.ai/v1"},
	}
	// A viewer of workspace profiled, whose namespace is ns.
	tok := token(t, signer, claims("alice", "profiled", ns, auth.RoleViewer))
	var last reply
	// The cache catches up with the creates.
	g.Eventually(func() intent.DeployProfile {
		last = a.do(t, http.MethodGet, "/api/v1/workspaces/profiled/deploy-profile", tok, nil)
		var got intent.DeployProfile
		if last.status == http.StatusOK {
			_ = json.Unmarshal(last.body, &got)
		}
		return got
	}).WithTimeout(30 * time.Second).WithPolling(50 * time.Millisecond).Should(gomega.Equal(want))
	if ct := last.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
	// Exactly the documented keys, nothing else.
	var raw map[string]any
	if err := json.Unmarshal(last.body, &raw); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range raw {
		keys = append(keys, k)
	}
	wantKeys := []string{"api_endpoint", "providers", "skills", "supportedDeployIntentVersions", "workspace"}
	slices.Sort(keys)
	if !reflect.DeepEqual(keys, wantKeys) {
		t.Fatalf("profile keys %v, want %v", keys, wantKeys)
	}
	for name, value := range secrets {
		if bytes.Contains(last.body, []byte(value)) || bytes.Contains(last.body, []byte("SECRET-VALUE")) {
			t.Fatalf("the profile holds Secret %s's value: %s", name, last.body)
		}
	}
	for _, leaked := range []string{"claude-key", "openai-key", "api-key", "dev-hidden", "dev-skills", "elsewhere", "other-skills"} {
		if bytes.Contains(last.body, []byte(leaked)) {
			t.Fatalf("the profile names %q: %s", leaked, last.body)
		}
	}

	// An empty workspace: arrays, never null.
	empty := newNamespace(t)
	newWorkspace(t, "bare", empty)
	r := a.do(t, http.MethodGet, "/api/v1/workspaces/bare/deploy-profile", token(t, signer, claims("bob", "bare", empty, auth.RoleViewer)), nil)
	if r.status != http.StatusOK || !bytes.Contains(r.body, []byte(`"providers":[]`)) || !bytes.Contains(r.body, []byte(`"skills":[]`)) || !bytes.Contains(r.body, []byte(`"api_endpoint":"https://`)) {
		t.Fatalf("empty workspace: %d %s", r.status, r.body)
	}
}

// blockingDeployer holds every Deploy until release is closed, telling
// entered about each one first, and records the callers and bodies.
type blockingDeployer struct {
	entered chan auth.Caller
	release chan struct{}
	mu      sync.Mutex
	bodies  [][]byte
}

func newBlockingDeployer() *blockingDeployer {
	return &blockingDeployer{entered: make(chan auth.Caller, 16), release: make(chan struct{})}
}

func (d *blockingDeployer) Deploy(_ context.Context, c auth.Caller, body []byte) server.Response {
	d.mu.Lock()
	d.bodies = append(d.bodies, body)
	d.mu.Unlock()
	d.entered <- c
	<-d.release
	return server.Response{Status: http.StatusOK, Body: intent.DeployResult{Succeeded: true, Results: []intent.ResourceResult{}}}
}

// TestConcurrencyLimit: a caller with MaxInFlightPerCaller requests held
// gets 429 with Retry-After for one more; another caller is not held back;
// once released, every held request completes. The caller handed to the
// Deployer is the token's, whatever the body says.
func TestConcurrencyLimit(t *testing.T) {
	d := newBlockingDeployer()
	a := start(t, server.Options{Deployer: d, MaxInFlightPerCaller: 2, RetryAfter: 1500 * time.Millisecond})
	alice := token(t, signer, claims("alice", "acme", "acme-ns", auth.RoleEditor))
	bob := token(t, signer, claims("bob", "acme", "acme-ns", auth.RoleAdmin))
	path := "/api/v1/workspaces/acme/deployments"
	body := []byte(`{"namespace":"kube-system","workspace":"other","role":"owner"}`)

	held := make(chan reply, 3)
	for _, tok := range []string{alice, alice, bob} {
		go func() { r, _ := a.try(http.MethodPost, path, tok, body); held <- r }()
	}
	seen := map[string]int{}
	for range 3 {
		c := <-d.entered
		if c.Namespace != "acme-ns" || c.Workspace != "acme" {
			t.Errorf("caller %+v: the namespace and workspace must come from the token", c)
		}
		seen[c.Subject]++
	}
	if seen["alice"] != 2 || seen["bob"] != 1 {
		t.Fatalf("held callers %v", seen)
	}
	r := a.do(t, http.MethodPost, path, alice, body)
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != "2" {
		t.Fatalf("third request of alice: %d Retry-After %q (%s), want 429 Retry-After 2", r.status, r.header.Get("Retry-After"), r.body)
	}
	r.errorMessage(t)
	close(d.release)
	for range 3 {
		if r := <-held; r.status != http.StatusOK {
			t.Fatalf("held request: %d %s", r.status, r.body)
		}
	}
	if r := a.do(t, http.MethodPost, path, alice, body); r.status != http.StatusOK {
		t.Fatalf("after release: %d %s", r.status, r.body)
	}
	for _, b := range d.bodies {
		if !bytes.Equal(b, body) {
			t.Fatalf("the Deployer got body %q, want %q", b, body)
		}
	}
}

// TestBodyLimit: a body over MaxBodyBytes answers 413 with a JSON error;
// one at the limit reaches the Deployer.
func TestBodyLimit(t *testing.T) {
	d := newBlockingDeployer()
	close(d.release)
	a := start(t, server.Options{Deployer: d})
	tok := token(t, signer, claims("alice", "acme", "acme-ns", auth.RoleEditor))
	path := "/api/v1/workspaces/acme/deployments"
	r := a.do(t, http.MethodPost, path, tok, bytes.Repeat([]byte("a"), server.DefaultMaxBodyBytes+1))
	if r.status != http.StatusRequestEntityTooLarge || !strings.Contains(r.errorMessage(t), "1048576 bytes") {
		t.Fatalf("over the limit: %d %s", r.status, r.body)
	}
	if r := a.do(t, http.MethodPost, path, tok, bytes.Repeat([]byte("a"), server.DefaultMaxBodyBytes)); r.status != http.StatusOK {
		t.Fatalf("at the limit: %d %s", r.status, r.body)
	}
	if len(d.bodies) != 1 || len(d.bodies[0]) != server.DefaultMaxBodyBytes {
		t.Fatalf("the Deployer got %d bodies", len(d.bodies))
	}
}

// TestGracefulShutdown: stopping the server lets a request in progress
// finish, and Start returns nil.
func TestGracefulShutdown(t *testing.T) {
	d := newBlockingDeployer()
	a := start(t, server.Options{Deployer: d})
	tok := token(t, signer, claims("alice", "acme", "acme-ns", auth.RoleEditor))
	held := make(chan reply, 1)
	go func() {
		r, _ := a.try(http.MethodPost, "/api/v1/workspaces/acme/deployments", tok, []byte("{}"))
		held <- r
	}()
	<-d.entered
	stopped := make(chan error, 1)
	go func() { stopped <- a.stop() }()
	close(d.release)
	if r := <-held; r.status != http.StatusOK {
		t.Fatalf("request in progress at shutdown: %d %s", r.status, r.body)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("Start: %v", err)
	}
}
