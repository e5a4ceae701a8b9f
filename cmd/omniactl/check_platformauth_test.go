package main

import (
	"slices"
	"strings"
	"testing"
)

// Static platform auth (provider.md, "Expected secret keys per static auth
// type"): omniactl checks the credentials Secret given beside the Provider
// with the same rules as the Provider's AuthConfigured condition
// (provider/auth-secret-found, provider/auth-secret-keys-found), naming the
// missing key and never a value.
const (
	providerBedrockAccessKey = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Provider
metadata: {name: claude-bedrock, namespace: agents}
spec:
  type: claude
  model: claude-sonnet-4-20250514
  platform: {type: bedrock, region: us-east-1}
  auth:
    type: accessKey
    credentialsSecretRef: {name: aws-credentials}
`
	secretAWS = `apiVersion: v1
kind: Secret
metadata: {name: aws-credentials, namespace: agents}
stringData: {AWS_ACCESS_KEY_ID: do-not-print-me-id, AWS_SECRET_ACCESS_KEY: do-not-print-me-secret}
`
)

func TestCheckProviderStaticAuthSecretKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		docs []string
		want []string
	}{
		{name: "accessKey Secret with both keys", docs: []string{providerBedrockAccessKey, secretAWS}},
		{name: "accessKey Secret without the secret access key",
			docs: []string{providerBedrockAccessKey, strings.Replace(secretAWS, ", AWS_SECRET_ACCESS_KEY: do-not-print-me-secret", "", 1)},
			want: []string{"claude-bedrock provider/auth-secret-keys-found spec.auth.credentialsSecretRef.name"}},
		{name: "accessKey Secret not given",
			docs: []string{providerBedrockAccessKey},
			want: []string{"claude-bedrock provider/auth-secret-found spec.auth.credentialsSecretRef.name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFile(t, t.TempDir(), "p.yaml", docs(tc.docs...))
			code, out, errOut := omniactl(t, "", "check", "-f", file, "-o", "json")
			if code != exitOK {
				t.Fatalf("exit %d, want 0 (warnings only); stderr: %s", code, errOut)
			}
			if got := keyed(findingsJSON(t, out)); !slices.Equal(got, tc.want) {
				t.Fatalf("findings %v, want %v", got, tc.want)
			}
			if strings.Contains(out, "do-not-print-me") {
				t.Fatal("a Secret value was printed")
			}
		})
	}
}
