package netguard

import (
	"net/url"
	"slices"
	"testing"
)

func TestParseHostPorts(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{in: "", want: nil},
		{in: "github.com", want: []string{"github.com:443"}},
		{in: " GitHub.COM. , git.internal:8443 ,,", want: []string{"github.com:443", "git.internal:8443"}},
		{in: "[2001:db8::1]:8443,2001:db8::2,[2001:db8::3]", want: []string{"[2001:db8::1]:8443", "[2001:db8::2]:443", "[2001:db8::3]:443"}},
		{in: "127.0.0.1:39001", want: []string{"127.0.0.1:39001"}},
		{in: "https://github.com", wantErr: true},
		{in: "github.com/acme", wantErr: true},
		{in: "bot@github.com", wantErr: true},
		{in: "git.internal:https", wantErr: true},
		{in: "git.internal:0", wantErr: true},
		{in: "git.internal:70000", wantErr: true},
		{in: ":443", wantErr: true},
		{in: "a:b:c", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseHostPorts(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseHostPorts(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && !slices.Equal(got, tt.want) {
			t.Errorf("ParseHostPorts(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestURLHostPort(t *testing.T) {
	for raw, want := range map[string]string{
		"https://GitHub.com./acme/evals.git": "github.com:443",
		"https://git.internal:8443/x.git":    "git.internal:8443",
		"http://git.internal/x.git":          "git.internal:80",
		"https://[2001:db8::1]/x.git":        "[2001:db8::1]:443",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := URLHostPort(u); got != want {
			t.Errorf("URLHostPort(%s) = %s, want %s", raw, got, want)
		}
	}
}
