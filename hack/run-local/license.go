package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/licensing/reload"
)

// The development licence of `make run`: signed by a key generated under
// the state directory and trusted by that local operator only (its public
// half is passed with --license-public-key). No release build trusts it:
// the operator's default key set is empty.
const (
	devLicenseCustomer = "local development"
	devLicenseID       = "local-development"
	devLicenseValidity = 30 * 24 * time.Hour
	// devLicenseLabel marks the Secret as the development licence.
	devLicenseLabel = "omnia.altairalabs.ai/development-license"
)

// setupDevLicense installs the development licence in the Secret
// arena-license of namespace and returns the operator arguments that trust
// its key. With openCore it removes a development licence an earlier run
// left (the etcd data is kept) and trusts no key.
func setupDevLicense(ctx context.Context, cfg *rest.Config, state, namespace string, openCore bool) ([]string, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	secrets := cs.CoreV1().Secrets(namespace)
	if openCore {
		err := secrets.Delete(ctx, reload.DefaultSecretName, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("removing the development licence: %w", err)
		}
		return nil, nil
	}
	dir := filepath.Join(state, "license")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	key, pubPath, err := devSigningKey(dir)
	if err != nil {
		return nil, err
	}
	claims := licensing.NewClaims(devLicenseID, devLicenseCustomer, licensing.TierEnterprise, licensing.AllFeatures,
		&licensing.Limits{}, time.Now(), devLicenseValidity)
	token, err := licensing.Sign(claims, key)
	if err != nil {
		return nil, err
	}
	// A copy for `omniactl license inspect` and `omniactl check --license`.
	if err := os.WriteFile(filepath.Join(dir, "license.jwt"), []byte(token+"\n"), 0o600); err != nil {
		return nil, err
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: reload.DefaultSecretName, Namespace: namespace, Labels: map[string]string{devLicenseLabel: "true"}},
		Data:       map[string][]byte{reload.DefaultSecretKey: []byte(token)},
	}
	if _, err := secrets.Create(ctx, secret, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
		_, err = secrets.Update(ctx, secret, metav1.UpdateOptions{})
		if err != nil {
			return nil, fmt.Errorf("installing the development licence: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("installing the development licence: %w", err)
	}
	return []string{"--license-public-key", pubPath}, nil
}

// devSigningKey loads the development signing key from dir, generating it
// (Ed25519) on the first run, and returns it with the path of its public
// half.
func devSigningKey(dir string) (ed25519.PrivateKey, string, error) {
	keyPath, pubPath := filepath.Join(dir, "dev-signing.key"), filepath.Join(dir, "dev-signing.pub")
	if data, err := os.ReadFile(keyPath); err == nil {
		block, _ := pem.Decode(data)
		if block == nil {
			return nil, "", fmt.Errorf("%s: no PEM block; delete it to generate a new key", keyPath)
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", keyPath, err)
		}
		priv, ok := k.(ed25519.PrivateKey)
		if !ok {
			return nil, "", fmt.Errorf("%s: not an Ed25519 key; delete it to generate a new one", keyPath)
		}
		return priv, pubPath, writePublic(pubPath, priv)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, "", err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, "", err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, "", err
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return nil, "", err
	}
	return priv, pubPath, writePublic(pubPath, priv)
}

func writePublic(path string, priv ed25519.PrivateKey) error {
	pub, err := licensing.MarshalPublicKeyPEM(priv.Public())
	if err != nil {
		return err
	}
	return os.WriteFile(path, pub, 0o600)
}
