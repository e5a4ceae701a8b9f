package main

import (
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name           string
		rules          []rbacv1.PolicyRule
		cluster, local int
		err            string
	}{
		{
			name: "a mixed rule splits by scope and keeps its verbs",
			rules: []rbacv1.PolicyRule{{
				APIGroups: []string{"omnia.altairalabs.ai"},
				Resources: []string{"workspaces", "providers", "providers/status"},
				Verbs:     []string{"get", "list"},
			}},
			cluster: 1, local: 1,
		},
		{
			name: "a resource in neither table is refused",
			rules: []rbacv1.PolicyRule{{
				APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get"},
			}},
			err: "resource /nodes: scope unknown",
		},
		{
			name: "resourceNames are refused (a split would widen them)",
			rules: []rbacv1.PolicyRule{{
				APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"x"}, Verbs: []string{"get"},
			}},
			err: "no resourceNames",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, n, err := Split(tt.rules)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c) != tt.cluster || len(n) != tt.local {
				t.Fatalf("cluster %+v, namespaced %+v", c, n)
			}
			if c[0].Resources[0] != "workspaces" || len(n[0].Resources) != 2 || n[0].Verbs[1] != "list" {
				t.Errorf("cluster %+v, namespaced %+v", c, n)
			}
		})
	}
}
