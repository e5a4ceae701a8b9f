package clusterbench

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/test/arenafixture"
	"github.com/altairalabs/omnia/test/licencetest"
	testredis "github.com/altairalabs/omnia/test/redis"
)

// ArenaBackend is what the operator's Arena controllers need on the local
// cluster: a private Redis for the run queues (its URL in a file, as the
// operator reads it), the workspace content volume, a directory, and a
// licence issuer's key the operator trusts (scheduled jobs are
// licence-gated; nothing is licensed until InstallLicence).
type ArenaBackend struct {
	RedisURL, RedisURLFile, ContentRoot string
	// LicenceKeyFile is the issuer's public key (PEM), for the operator.
	LicenceKeyFile string
	redis          *testredis.Server
	signer         ed25519.PrivateKey
}

// StartArenaBackend starts Redis with its files under dir and makes the
// content root there.
func StartArenaBackend(dir string) (*ArenaBackend, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server not found: run hack/ensure-redis.sh (make redis): %w", err)
	}
	redisDir := filepath.Join(dir, "redis")
	if err := os.MkdirAll(redisDir, 0o700); err != nil {
		return nil, err
	}
	contentRoot := filepath.Join(dir, "content")
	if err := os.MkdirAll(contentRoot, 0o755); err != nil {
		return nil, err
	}
	rds, err := testredis.StartIn(bin, redisDir)
	if err != nil {
		return nil, err
	}
	b := &ArenaBackend{RedisURL: rds.URL(), RedisURLFile: filepath.Join(dir, "queue-redis-url"), ContentRoot: contentRoot,
		LicenceKeyFile: filepath.Join(dir, "license.pub"), redis: rds}
	if err := b.writeFiles(); err != nil {
		rds.Stop()
		return nil, err
	}
	return b, nil
}

// writeFiles writes the Redis URL file and a fresh licence key's public half.
func (b *ArenaBackend) writeFiles() error {
	if err := os.WriteFile(b.RedisURLFile, []byte(b.RedisURL+"\n"), 0o600); err != nil {
		return err
	}
	_, signer, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	pub, err := licensing.MarshalPublicKeyPEM(signer.Public())
	if err != nil {
		return err
	}
	b.signer = signer
	return os.WriteFile(b.LicenceKeyFile, pub, 0o600)
}

// InstallLicence installs an enterprise licence (every feature, an hour)
// signed with the backend's key; the operator reloads it without a
// restart.
func (b *ArenaBackend) InstallLicence(ctx context.Context, c client.Client) error {
	return licencetest.InstallLicence(ctx, c, b.signer, "perf-arena", "omnia perf harness")
}

// OperatorArgs are the operator flags that turn the Arena controllers on
// against this backend.
func (b *ArenaBackend) OperatorArgs() []string {
	return []string{"--arena", "--workspace-content-path", b.ContentRoot, "--arena-queue-redis-url-file", b.RedisURLFile,
		"--license-public-key", b.LicenceKeyFile}
}

// Stop stops Redis.
func (b *ArenaBackend) Stop() { b.redis.Stop() }

// SetUpArenaNamespace creates what stands in a team's namespace before
// its Arena objects arrive: the namespace, the Providers' credential Secret
// and a hosted ArenaProject, arenafixture's two-scenario project, whose git
// repository go-git writes into the workspace content volume.
func SetUpArenaNamespace(ctx context.Context, c client.Client, ns, contentRoot string) error {
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return fmt.Errorf("namespace %s: %w", ns, err)
	}
	if err := c.Create(ctx, CredentialSecretIn(ns)); err != nil {
		return fmt.Errorf("secret in %s: %w", ns, err)
	}
	if _, err := arenafixture.CommitRepository(source.HostedPath(contentRoot, ns, arenafixture.ProjectName), arenafixture.ProjectFiles); err != nil {
		return fmt.Errorf("project repository of %s: %w", ns, err)
	}
	return c.Create(ctx, &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: arenafixture.ProjectName}})
}

// ArenaProjectName is the project SetUpArenaNamespace creates: an
// ArenaJob's spec.sourceRef.
const ArenaProjectName = arenafixture.ProjectName

// WaitArenaProjectsReady waits until n ArenaProjects are Ready (set-up,
// not timed): a list a second, of at most one project per namespace.
func WaitArenaProjectsReady(ctx context.Context, c client.Client, n int) error {
	return wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		list := &v1alpha1.ArenaProjectList{}
		if err := c.List(ctx, list); err != nil {
			return false, err
		}
		ready := 0
		for _, p := range list.Items {
			if p.Status.Phase == v1alpha1.ArenaProjectPhaseReady {
				ready++
			}
		}
		return ready == n, nil
	})
}
