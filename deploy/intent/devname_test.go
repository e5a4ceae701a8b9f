package intent

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func devHash(id, user string) string {
	sum := sha256.Sum256([]byte(id + "\x00" + user))
	return hex.EncodeToString(sum[:])[:DevNameHashLen]
}

func TestDevName(t *testing.T) {
	long := strings.Repeat("p", 63)
	for _, tc := range []struct {
		name, id, user, want string
	}{
		{"a DNS label as is", "my-project", "u1a2b3", "dev-my-project-u1a2b3"},
		{"exactly 63 characters as is", strings.Repeat("a", 49), "u12345678", "dev-" + strings.Repeat("a", 49) + "-u12345678"},
		{"64 characters: hashed, the id cut", strings.Repeat("a", 49), "u123456789", "dev-" + strings.Repeat("a", 48) + "-" + devHash(strings.Repeat("a", 49), "u123456789")},
		{"dots and underscores in the id", "my_project.v2", "u1", "dev-my-project-v2-" + devHash("my_project.v2", "u1")},
		{"upper case pseudonym", "p", "User1", "dev-p-" + devHash("p", "User1")},
		{"empty pseudonym", "p", "", "dev-p-" + devHash("p", "")},
		{"long id cut to fit", long, "u1", "dev-" + long[:48] + "-" + devHash(long, "u1")},
		{"a cut that ends in a dash", strings.Repeat("a", 47) + "_b", "u_1", "dev-" + strings.Repeat("a", 47) + "-" + devHash(strings.Repeat("a", 47)+"_b", "u_1")},
		{"an id with nothing to keep", "__", "u1", "dev-" + devHash("__", "u1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := DevName(tc.id, tc.user)
			if got != tc.want {
				t.Errorf("DevName(%q, %q) = %q, want %q", tc.id, tc.user, got, tc.want)
			}
			if len(validation.IsDNS1123Label(got)) > 0 {
				t.Errorf("DevName(%q, %q) = %q is not a DNS label", tc.id, tc.user, got)
			}
		})
	}
	if DevName("a.b", "u1") == DevName("a.b", "u2") {
		t.Error("two users of one project share a fallback name")
	}
}
