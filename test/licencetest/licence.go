// Package licencetest installs licences in a test cluster.
package licencetest

import (
	"context"
	"crypto"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/licensing/reload"
)

// InstallLicence signs an enterprise licence with every feature and no
// limit, valid for an hour, with key (which the operator under test trusts)
// and writes it into the licence Secret of the operator's namespace, where
// the operator reloads it without a restart.
func InstallLicence(ctx context.Context, c client.Client, key crypto.Signer, lid, customer string) error {
	claims := licensing.NewClaims(lid, customer, licensing.TierEnterprise, licensing.AllFeatures,
		&licensing.Limits{}, time.Now(), time.Hour)
	token, err := licensing.Sign(claims, key)
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: admission.DefaultExcludedNamespace}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return c.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: admission.DefaultExcludedNamespace, Name: reload.DefaultSecretName},
		Data:       map[string][]byte{reload.DefaultSecretKey: []byte(token)},
	})
}
