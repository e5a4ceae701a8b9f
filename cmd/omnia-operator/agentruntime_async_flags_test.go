package main

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestAsyncOptions: the --async-redis-* flags, one accepted and one
// refused case per rule; an error never quotes a URL.
func TestAsyncOptions(t *testing.T) {
	for _, tc := range []struct {
		name              string
		url, host, secret string
		wantURL           string
		wantSecret        *types.NamespacedName
		wantErr           string
	}{
		{name: "none: no backend"},
		{name: "url", url: "redis://:pw@redis:6379/0", wantURL: "redis://:pw@redis:6379/0"},
		{name: "url not redis", url: "http://:pw@redis:6379", wantErr: "--async-redis-url"},
		{name: "url with a trailing newline", url: "redis://redis:6379\n", wantErr: "--async-redis-url"},
		{name: "host with the default port", host: "redis.omnia-system.svc", wantURL: "redis://redis.omnia-system.svc:6379"},
		{name: "host with a port", host: "redis:6380", wantURL: "redis://redis:6380"},
		{name: "IPv6 host", host: "[fd00::10]", wantURL: "redis://[fd00::10]:6379"},
		{name: "host with credentials", host: "user:pw@redis", wantErr: "--async-redis-host"},
		{name: "host with a path", host: "redis/0", wantErr: "--async-redis-host"},
		{name: "existingSecret", secret: "redis-default", wantSecret: &types.NamespacedName{Namespace: "omnia-system", Name: "redis-default"}},
		{name: "existingSecret not a name", secret: "Redis_Default", wantErr: "--async-redis-existing-secret"},
		{name: "two at once", url: "redis://redis:6379", secret: "redis-default", wantErr: "at most one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := asyncOptions(tc.url, tc.host, tc.secret, "omnia-system")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one naming %s", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), ":pw@") {
					t.Errorf("the error quotes the URL: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.URL != tc.wantURL {
				t.Errorf("URL %q, want %q", got.URL, tc.wantURL)
			}
			if (got.ExistingSecret == nil) != (tc.wantSecret == nil) || (got.ExistingSecret != nil && *got.ExistingSecret != *tc.wantSecret) {
				t.Errorf("ExistingSecret %v, want %v", got.ExistingSecret, tc.wantSecret)
			}
		})
	}
}
