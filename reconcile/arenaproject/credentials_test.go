package arenaproject

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/storage/memory"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source/gittest"
)

// TestExternalProjectCredentials is the attack of a tenant who may create
// ArenaProjects but not read Secrets: spec.git.secretRef names the
// namespace's database password (an ordinary Opaque Secret with a password
// key), and spec.git.url a server the tenant runs. The operator must send
// no credential there, and none from a Secret that did not opt in even to
// a host it allows; the project's Ready condition says which with its own
// reason. The one accepted case: an opted-in Secret (basic-auth, labelled)
// to the host of --arena-git-hosts, whose server gets exactly that
// credential.
func TestExternalProjectCredentials(t *testing.T) {
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	head := twoCommits(t, repo, "trunk")
	allowed := gittest.Serve(t, repo, gittest.Options{Username: "bot", Password: "tok", TLS: true, Listener: allowedGitListener})
	tenant := gittest.Serve(t, repo, gittest.Options{TLS: true}) // the tenant's own server: anonymous, it takes anything
	ns := namespace(t)

	optIn := map[string]string{v1alpha1.ArenaProjectGitCredentialsLabel: v1alpha1.ArenaProjectGitCredentialsValue}
	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Name: "db"}, Type: corev1.SecretTypeOpaque,
			Data: map[string][]byte{"username": []byte("app"), "password": []byte("db-password")}},
		{ObjectMeta: metav1.ObjectMeta{Name: "git-creds", Labels: optIn}, Type: corev1.SecretTypeBasicAuth,
			Data: map[string][]byte{"username": []byte("bot"), "password": []byte("tok")}},
		{ObjectMeta: metav1.ObjectMeta{Name: "unlabelled"}, Type: corev1.SecretTypeBasicAuth,
			Data: map[string][]byte{"username": []byte("bot"), "password": []byte("unlabelled-password")}},
		{ObjectMeta: metav1.ObjectMeta{Name: "labelled-opaque", Labels: optIn}, Type: corev1.SecretTypeOpaque,
			Data: map[string][]byte{"password": []byte("labelled-opaque-password")}},
		{ObjectMeta: metav1.ObjectMeta{Name: "ssh-key", Labels: optIn}, Type: corev1.SecretTypeSSHAuth,
			Data: map[string][]byte{corev1.SSHAuthPrivateKey: []byte("ssh-key-material"), "password": []byte("ssh-password")}},
	} {
		s.Namespace = ns
		if err := direct.Create(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}

	cases := []struct {
		name, url, secret string
		phase             v1alpha1.ArenaProjectPhase
		reason            string
		branch, commit    string
	}{
		// The attack: the database password to the tenant's server, and
		// to a host the operator allows.
		{name: "database-password-to-tenant-server", url: tenant.URL, secret: "db", phase: "Failed", reason: v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed},
		{name: "database-password-to-allowed-host", url: allowed.URL, secret: "db", phase: "Failed", reason: v1alpha1.ArenaProjectReasonCredentialsSecretNotOptedIn},
		// Opted in, to a host not in --arena-git-hosts.
		{name: "git-credentials-to-tenant-server", url: tenant.URL, secret: "git-creds", phase: "Failed", reason: v1alpha1.ArenaProjectReasonCredentialsHostNotAllowed},
		// Half an opt-in is none.
		{name: "unlabelled-basic-auth", url: allowed.URL, secret: "unlabelled", phase: "Failed", reason: v1alpha1.ArenaProjectReasonCredentialsSecretNotOptedIn},
		{name: "labelled-opaque", url: allowed.URL, secret: "labelled-opaque", phase: "Failed", reason: v1alpha1.ArenaProjectReasonCredentialsSecretNotOptedIn},
		// An ssh key is never sent over https.
		{name: "ssh-key-over-https", url: allowed.URL, secret: "ssh-key", phase: "Failed", reason: v1alpha1.ArenaProjectReasonCredentialsNotFound},
		{name: "missing-secret", url: allowed.URL, secret: "nope", phase: "Failed", reason: v1alpha1.ArenaProjectReasonCredentialsNotFound},
		// Accepted: opted in, to the allowed host.
		{name: "opted-in-to-allowed-host", url: allowed.URL, secret: "git-creds", phase: "Ready", reason: v1alpha1.ArenaProjectReasonResolved, branch: "trunk", commit: head.String()},
	}
	for _, tc := range cases {
		create(t, externalProject(ns, tc.name, tc.url, tc.secret))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := eventually(t, ns, tc.name, tc.phase, tc.reason, tc.branch, tc.commit)
			c := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.ArenaProjectConditionReady)
			for _, secret := range []string{"db-password", "tok", "unlabelled-password", "labelled-opaque-password", "ssh-key-material", "ssh-password"} {
				if strings.Contains(c.Message, secret) {
					t.Errorf("Ready message %q carries a Secret's value", c.Message)
				}
			}
		})
	}

	// The tenant's server got no request at all; the allowed one got
	// credentials, and only the opted-in Secret's.
	if n := tenant.Requests.Load(); n != 0 {
		t.Errorf("the tenant's server was sent %d requests (Authorization headers %q)", n, tenant.Authorizations())
	}
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("bot:tok"))
	got := allowed.Authorizations()
	if len(got) == 0 {
		t.Error("the allowed host got no credential")
	}
	for _, h := range got {
		if h != want {
			raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(h, "Basic "))
			t.Errorf("the allowed host got Authorization %q (%q), want only the opted-in Secret's", h, raw)
		}
	}
}
