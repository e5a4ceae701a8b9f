package rules

import (
	"slices"
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// platformAuth makes the base Provider platform-hosted with static auth
// reading Secret "cloud-credentials" (key: credentialsSecretRef.key).
func platformAuth(platform v1alpha1.ProviderPlatformType, auth v1alpha1.ProviderAuthType, key string) func(*v1alpha1.Provider) {
	return func(p *v1alpha1.Provider) {
		p.Spec.Platform = &v1alpha1.ProviderPlatform{Type: platform, Region: "us-east-1"}
		switch platform {
		case v1alpha1.ProviderPlatformTypeVertex:
			p.Spec.Platform.Project = "proj"
		case v1alpha1.ProviderPlatformTypeAzure:
			p.Spec.Platform.Region, p.Spec.Platform.Endpoint = "", "https://res.openai.azure.com"
		}
		p.Spec.Auth = &v1alpha1.ProviderAuth{Type: auth}
		if auth != v1alpha1.ProviderAuthTypeWorkloadIdentity {
			p.Spec.Auth.CredentialsSecretRef = &v1alpha1.ProviderSecretKeyRef{Name: "cloud-credentials", Key: key}
		}
	}
}

// withCloudSecret is the base Provider's facts plus Secret
// "cloud-credentials" holding keys (nil: no such Secret).
func withCloudSecret(keys ...string) providerTestFacts {
	f := providerBaseFacts()
	if keys != nil {
		f.secrets[providerTestNamespace+"/cloud-credentials"] = keys
	}
	return f
}

func TestProviderAuthSecretRules(t *testing.T) {
	const bedrock, vertex, azure = v1alpha1.ProviderPlatformTypeBedrock, v1alpha1.ProviderPlatformTypeVertex, v1alpha1.ProviderPlatformTypeAzure
	cases := []ruleCase[*v1alpha1.Provider]{
		// provider/auth-secret-found
		{name: "accessKey Secret present with both keys", mutate: platformAuth(bedrock, v1alpha1.ProviderAuthTypeAccessKey, ""),
			facts: withCloudSecret("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")},
		{name: "accessKey Secret missing", mutate: platformAuth(bedrock, v1alpha1.ProviderAuthTypeAccessKey, ""),
			facts: withCloudSecret(), want: []providerWant{{"provider/auth-secret-found", "spec.auth.credentialsSecretRef.name"}}},
		{name: "workloadIdentity reads no Secret", mutate: platformAuth(bedrock, v1alpha1.ProviderAuthTypeWorkloadIdentity, ""),
			facts: withCloudSecret()},

		// provider/auth-secret-keys-found
		{name: "accessKey with the optional session token too", mutate: platformAuth(bedrock, v1alpha1.ProviderAuthTypeAccessKey, ""),
			facts: withCloudSecret("AWS_SESSION_TOKEN", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")},
		{name: "accessKey without the secret access key", mutate: platformAuth(bedrock, v1alpha1.ProviderAuthTypeAccessKey, ""),
			facts: withCloudSecret("AWS_ACCESS_KEY_ID"), want: []providerWant{{"provider/auth-secret-keys-found", "spec.auth.credentialsSecretRef.name"}}},
		{name: "serviceAccount with credentials.json", mutate: platformAuth(vertex, v1alpha1.ProviderAuthTypeServiceAccount, ""),
			facts: withCloudSecret("credentials.json")},
		{name: "serviceAccount without credentials.json", mutate: platformAuth(vertex, v1alpha1.ProviderAuthTypeServiceAccount, ""),
			facts: withCloudSecret("key.json"), want: []providerWant{{"provider/auth-secret-keys-found", "spec.auth.credentialsSecretRef.name"}}},
		{name: "serviceAccount with its custom key", mutate: platformAuth(vertex, v1alpha1.ProviderAuthTypeServiceAccount, "sa.json"),
			facts: withCloudSecret("sa.json")},
		{name: "serviceAccount custom key missing: credentials.json is not tried", mutate: platformAuth(vertex, v1alpha1.ProviderAuthTypeServiceAccount, "sa.json"),
			facts: withCloudSecret("credentials.json"), want: []providerWant{{"provider/auth-secret-keys-found", "spec.auth.credentialsSecretRef.key"}}},
		{name: "servicePrincipal with all three keys", mutate: platformAuth(azure, v1alpha1.ProviderAuthTypeServicePrincipal, ""),
			facts: withCloudSecret("AZURE_CLIENT_SECRET", "AZURE_CLIENT_ID", "AZURE_TENANT_ID")},
		{name: "servicePrincipal without the tenant", mutate: platformAuth(azure, v1alpha1.ProviderAuthTypeServicePrincipal, ""),
			facts: withCloudSecret("AZURE_CLIENT_SECRET", "AZURE_CLIENT_ID"), want: []providerWant{{"provider/auth-secret-keys-found", "spec.auth.credentialsSecretRef.name"}}},
	}
	ruleTable[*v1alpha1.Provider]{kind: "Provider", prefix: "provider/auth-secret", base: providerBase, facts: func() Facts { return providerBaseFacts() }}.run(t, cases)
}

func TestProviderAuthSecretKeys(t *testing.T) {
	for _, tc := range []struct {
		auth *v1alpha1.ProviderAuth
		want []string
	}{
		{nil, nil},
		{&v1alpha1.ProviderAuth{Type: v1alpha1.ProviderAuthTypeWorkloadIdentity}, nil},
		{&v1alpha1.ProviderAuth{Type: v1alpha1.ProviderAuthTypeAccessKey}, []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}},
		{&v1alpha1.ProviderAuth{Type: v1alpha1.ProviderAuthTypeServiceAccount}, []string{"credentials.json"}},
		{&v1alpha1.ProviderAuth{Type: v1alpha1.ProviderAuthTypeServiceAccount, CredentialsSecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "s", Key: "k"}}, []string{"k"}},
		{&v1alpha1.ProviderAuth{Type: v1alpha1.ProviderAuthTypeServicePrincipal}, []string{"AZURE_TENANT_ID", "AZURE_CLIENT_ID", "AZURE_CLIENT_SECRET"}},
	} {
		p := providerBase()
		p.Spec.Auth = tc.auth
		got := ProviderAuthSecretKeys(p)
		if !slices.Equal(got, tc.want) {
			t.Errorf("auth %+v: keys %v, want %v", tc.auth, got, tc.want)
		}
		if len(got) > 0 {
			got[0] = "mutated" // the caller's own copy: the table is untouched
			if again := ProviderAuthSecretKeys(p); again[0] == "mutated" {
				t.Errorf("auth %+v: the returned slice aliases the table", tc.auth)
			}
		}
	}
}
