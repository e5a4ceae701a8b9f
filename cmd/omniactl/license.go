package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/rules"
)

// loadLicense reads and verifies a licence file (the token, as in the
// Secret's license key) with the trusted keys, as the operator would.
func loadLicense(path string, keyFiles []string, now time.Time) (licensing.Verified, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return licensing.Verified{}, err
	}
	if len(keyFiles) == 0 {
		return licensing.Verified{}, errors.New("a licence is only used verified: give the issuer's public key with --license-public-key FILE")
	}
	keys, err := licensing.LoadPublicKeyFiles(keyFiles)
	if err != nil {
		return licensing.Verified{}, err
	}
	v, err := licensing.NewVerifier(keys, licensing.DefaultGrace, func() time.Time { return now }).Verify(string(data))
	if err != nil {
		return licensing.Verified{}, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// licenseCheckFlags are check's licence flags.
type licenseCheckFlags struct {
	file string
	keys pathsFlag
}

func (l *licenseCheckFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&l.file, "license", "", "licence file (the JWT of the arena-license Secret) the rules see, verified with --license-public-key; default the open-core licence")
	fs.Var(&l.keys, "license-public-key", "PEM file of the licence issuer's public keys; repeatable")
}

// license returns the licence check evaluates with.
func (l *licenseCheckFlags) license(stderr io.Writer) (rules.License, error) {
	if l.file == "" {
		return licensing.OpenCore(), nil
	}
	v, err := loadLicense(l.file, l.keys, time.Now())
	if err != nil {
		return rules.License{}, err
	}
	if v.InGrace {
		fmt.Fprintf(stderr, "omniactl: warning: licence %s expired at %s and is in its grace period\n", v.License.ID, v.License.ExpiresAt.Format(time.RFC3339))
	}
	return v.License, nil
}

const licenseUsage = `Usage:
  omniactl license inspect FILE [--public-key PEM]… [-o text|json]

Prints what a licence grants: customer, tier, validity, features and
limits. With --public-key the signature, algorithm and expiry are checked as
the operator checks them (exit 1 when refused); without, the claims are
printed unverified.
`

func runLicense(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "inspect" {
		fmt.Fprint(stderr, licenseUsage)
		return exitInput
	}
	fs := flag.NewFlagSet("omniactl license inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		keys   pathsFlag
		format string
	)
	fs.Var(&keys, "public-key", "PEM file of the issuer's public keys; repeatable")
	fs.StringVar(&format, "o", "text", "output: text or json")
	positional, err := parseInterleaved(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitInput
	}
	if len(positional) != 1 || (format != "text" && format != "json") {
		fmt.Fprint(stderr, licenseUsage)
		return exitInput
	}
	path := positional[0]
	now := time.Now()
	out := licenseReport{File: path}
	if len(keys) > 0 {
		v, err := loadLicense(path, keys, now)
		if err != nil {
			fmt.Fprintln(stderr, "omniactl license inspect: refused:", err)
			return exitDenied
		}
		out.License, out.Verified, out.InGrace, out.Key = v.License, true, v.InGrace, v.Key
	} else {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(stderr, "omniactl license inspect:", err)
			return exitInput
		}
		if out.License, err = licensing.DecodeUnverified(string(data)); err != nil {
			fmt.Fprintln(stderr, "omniactl license inspect:", err)
			return exitInput
		}
		out.Expired = !now.Before(out.License.ExpiresAt)
	}
	out.fill()
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return exitInput
		}
		return exitOK
	}
	out.writeText(stdout)
	return exitOK
}

// licenseReport is what inspect prints.
type licenseReport struct {
	File     string            `json:"file"`
	Verified bool              `json:"verified"`
	Key      string            `json:"key,omitempty"`
	InGrace  bool              `json:"inGrace,omitempty"`
	Expired  bool              `json:"expired,omitempty"`
	License  licensing.License `json:"license"`
	Granted  []string          `json:"granted"`
	Missing  []string          `json:"notGranted"`
	Limits   licensing.Limits  `json:"effectiveLimits"`
}

func (r *licenseReport) fill() {
	r.Granted = r.License.FeatureList()
	if r.Granted == nil {
		r.Granted = []string{}
	}
	r.Missing = []string{}
	for _, f := range licensing.AllFeatures {
		if !r.License.Has(f) {
			r.Missing = append(r.Missing, f)
		}
	}
	r.Limits = r.License.EffectiveLimits()
}

func limitText(n int) string {
	if n == 0 {
		return "unlimited"
	}
	return strconv.Itoa(n)
}

func (r *licenseReport) writeText(w io.Writer) {
	l := r.License
	status := "signature NOT verified (no --public-key): these are the token's claims"
	if r.Verified {
		status = "verified with " + r.Key
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "licence\t%s\t(%s)\n", l.ID, status)
	fmt.Fprintf(tw, "customer\t%s\n", l.Customer)
	fmt.Fprintf(tw, "tier\t%s\n", l.Tier)
	fmt.Fprintf(tw, "issued\t%s\n", l.IssuedAt.Format(time.RFC3339))
	exp := l.ExpiresAt.Format(time.RFC3339)
	switch {
	case r.InGrace:
		exp += " (expired: in its grace period)"
	case r.Expired:
		exp += " (expired)"
	}
	fmt.Fprintf(tw, "expires\t%s\n", exp)
	fmt.Fprintf(tw, "features\t%s\n", orNone(r.Granted))
	fmt.Fprintf(tw, "not granted\t%s\n", orNone(r.Missing))
	fmt.Fprintf(tw, "maxScenarios\t%s\n", limitText(r.Limits.MaxScenarios))
	fmt.Fprintf(tw, "maxWorkerReplicas\t%s\n", limitText(r.Limits.MaxWorkerReplicas))
	_ = tw.Flush()
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
