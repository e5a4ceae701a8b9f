package reload

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"

	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/test/controlplane"
)

var testConfig *rest.Config

// TestMain starts one real API server for the package.
func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	env, err := controlplane.Start(controlplane.Options{Kinds: []string{"Workspace"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testConfig = env.Config
	code := m.Run()
	_ = env.Stop()
	os.Exit(code)
}

func newKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func token(t *testing.T, key ed25519.PrivateKey, features ...string) string {
	t.Helper()
	c := licensing.NewClaims("lic-"+strings.Join(features, "-"), "Acme", licensing.TierEnterprise, features,
		&licensing.Limits{MaxWorkerReplicas: 4}, time.Now().Add(-time.Minute), 24*time.Hour)
	tok, err := licensing.Sign(c, key)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestReloadOnSecretChange: the store follows the licence Secret — created,
// replaced by a licence of another issuer (refused, open-core, Warning
// event that never quotes the token), fixed, deleted — without a restart.
func TestReloadOnSecretChange(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs := kubernetes.NewForConfigOrDie(testConfig)
	const ns = "omnia-licensing-test"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Another Secret in the namespace is never read.
	if _, err := cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "other"},
		Data: map[string][]byte{"license": []byte("not-a-token")}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	issuer, stranger := newKey(t), newKey(t)
	pemBytes, err := licensing.MarshalPublicKeyPEM(issuer.Public())
	if err != nil {
		t.Fatal(err)
	}
	keys, err := licensing.ParsePublicKeys(pemBytes, "test")
	if err != nil {
		t.Fatal(err)
	}
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: cs.EventsV1()})
	broadcaster.StartRecordingToSink(ctx.Done())
	defer broadcaster.Shutdown()
	store := licensing.NewStore()
	w, err := NewWithClient(cs, Options{
		Namespace: ns,
		Verifier:  licensing.NewVerifier(keys, licensing.DefaultGrace, nil),
		Store:     store,
		Recorder:  broadcaster.NewRecorder(scheme.Scheme, "omnia-licensing"),
		Log:       testr.New(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Start(ctx) }()
	waitFor(t, "the watcher to sync", func() bool { return w.Synced() })
	if store.Current().Enterprise() || store.State().Reason == "" {
		t.Fatalf("no Secret: want open-core with a reason, got %+v", store.State())
	}

	secrets := cs.CoreV1().Secrets(ns)
	good := token(t, issuer, licensing.FeatureCustomFacade)
	secret, err := secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: DefaultSecretName},
		Data: map[string][]byte{DefaultSecretKey: []byte(good)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the licence to apply", func() bool { return store.Current().Has(licensing.FeatureCustomFacade) })

	forged := token(t, stranger, licensing.FeatureCustomFacade, licensing.FeatureLoadTesting)
	secret.Data[DefaultSecretKey] = []byte(forged)
	if secret, err = secrets.Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the forged licence to be refused", func() bool {
		st := store.State()
		return !st.Verified && !st.License.Has(licensing.FeatureCustomFacade) && strings.Contains(st.Reason, "signature")
	})
	waitFor(t, "a LicenseRefused event on the Secret", func() bool {
		list, err := cs.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false
		}
		for _, e := range list.Items {
			if strings.Contains(e.Note, forged) || strings.Contains(e.Note, good) {
				t.Fatalf("event quotes the token: %s", e.Note)
			}
			if e.Reason == ReasonLicenseRefused && e.Regarding.Name == DefaultSecretName && e.Type == corev1.EventTypeWarning {
				return true
			}
		}
		return false
	})

	secret.Data[DefaultSecretKey] = []byte(token(t, issuer, licensing.FeatureLoadTesting))
	if _, err = secrets.Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the renewed licence to apply", func() bool {
		l := store.Current()
		return l.Has(licensing.FeatureLoadTesting) && !l.Has(licensing.FeatureCustomFacade)
	})

	if err := secrets.Delete(ctx, DefaultSecretName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "open-core after the Secret is deleted", func() bool { return !store.Current().Enterprise() })

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("watcher: %v", err)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
