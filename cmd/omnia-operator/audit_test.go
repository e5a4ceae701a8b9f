package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies/reports"
	"github.com/altairalabs/omnia/test/controlplane"
)

// TestBackgroundAudit runs the operator's background audit on a short
// interval: started without the OpenReports CRDs it audits and writes
// nothing (and keeps serving); once they are installed its report holds a
// Provider's built-in warn finding with the rule ID and field; further
// audits with nothing changed do not rewrite it; fixing the Provider
// updates it.
func TestBackgroundAudit(t *testing.T) {
	needsAPIServer(t)
	ctx := context.Background()
	if err := controlplane.UninstallOpenReportsCRDs(ctx, env.Config); err != nil {
		t.Fatal(err)
	}
	ns := namespace(t)
	p := &v1alpha1.Provider{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "plain-http"},
		Spec:       v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock, BaseURL: "http://127.0.0.1:1/v1"},
	}
	if err := admin.Create(ctx, p); err != nil {
		t.Fatal(err)
	}

	op := launch(t, "operator-audit", env.WebhookInstallOptions.LocalServingCertDir, "--audit-interval=1s")
	if err := op.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	scrape := auditMetrics(t, op)

	// Without the CRDs: audits run, count the warn, write nothing.
	eventually(t, time.Minute, "audits without the OpenReports CRDs", func() error {
		m := scrape()
		if m[`omnia_audit_runs_total{outcome="ok"}`] < 2 || m[`omnia_audit_results{outcome="warn"}`] < 1 {
			return fmt.Errorf("metrics %v", m)
		}
		return nil
	})
	if m := scrape(); m[`omnia_audit_report_writes_total{op="create"}`] != 0 {
		t.Errorf("reports written without the CRDs: %v", m)
	}
	if !strings.Contains(operatorLog(t, op), "OpenReports CRDs") {
		t.Errorf("the operator did not log that the OpenReports CRDs are missing")
	}

	// With them: the report.
	if err := controlplane.InstallOpenReportsCRDs(env.Config); err != nil {
		t.Fatal(err)
	}
	reportsClient := reportsClientFor(t)
	var rep *openreportsv1alpha1.Report
	eventually(t, time.Minute, "the namespace's report with the warn finding", func() error {
		rep = &openreportsv1alpha1.Report{}
		if err := reportsClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: reports.Name}, rep); err != nil {
			return err
		}
		for _, r := range rep.Results {
			if r.Policy == "provider/base-url-plain-http" && r.Result == reports.ResultWarn &&
				r.Properties[reports.PropertyField] == "spec.baseURL" && len(r.Subjects) == 1 && r.Subjects[0].Name == "plain-http" {
				return nil
			}
		}
		return fmt.Errorf("results %+v", rep.Results)
	})

	// Two more audits with nothing changed: not rewritten.
	runs := scrape()[`omnia_audit_runs_total{outcome="ok"}`]
	eventually(t, time.Minute, "two more audits", func() error {
		if got := scrape()[`omnia_audit_runs_total{outcome="ok"}`]; got < runs+2 {
			return fmt.Errorf("%v audits, want %v", got, runs+2)
		}
		return nil
	})
	again := &openreportsv1alpha1.Report{}
	if err := reportsClient.Get(ctx, client.ObjectKeyFromObject(rep), again); err != nil {
		t.Fatal(err)
	}
	if again.ResourceVersion != rep.ResourceVersion {
		t.Errorf("unchanged report rewritten: resourceVersion %s -> %s", rep.ResourceVersion, again.ResourceVersion)
	}

	// Fixed: the warn goes (with nothing else to report, so does the
	// report).
	eventually(t, 30*time.Second, "the Provider fixed", func() error {
		cur := &v1alpha1.Provider{}
		if err := admin.Get(ctx, client.ObjectKeyFromObject(p), cur); err != nil {
			return err
		}
		cur.Spec.BaseURL = "https://127.0.0.1:1/v1"
		return admin.Update(ctx, cur)
	})
	eventually(t, time.Minute, "the report without the warn", func() error {
		cur := &openreportsv1alpha1.Report{}
		err := reportsClient.Get(ctx, client.ObjectKeyFromObject(rep), cur)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, r := range cur.Results {
			if r.Policy == "provider/base-url-plain-http" {
				return errors.New("warn still reported")
			}
		}
		return nil
	})
}

func reportsClientFor(t *testing.T) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := openreportsv1alpha1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var auditMetricLine = regexp.MustCompile(`^(omnia_audit_[a-z_]+(?:\{[^}]*\})?) ([0-9.e+-]+)$`)

// auditMetrics returns a scraper of the operator's omnia_audit_* series,
// as the metrics reader would read them.
func auditMetrics(t *testing.T, op *controlplane.Operator) func() map[string]float64 {
	t.Helper()
	token, err := controlplane.ServiceAccountToken(env.Config, controlplane.OperatorNamespace, controlplane.MetricsScraper)
	if err != nil {
		t.Fatal(err)
	}
	return func() map[string]float64 {
		t.Helper()
		code, body, err := op.Metrics(token)
		if err != nil || code != 200 {
			t.Fatalf("scraping %s: %d %v", op.MetricsURL, code, err)
		}
		out := map[string]float64{}
		for _, line := range strings.Split(body, "\n") {
			if m := auditMetricLine.FindStringSubmatch(line); m != nil {
				v, _ := strconv.ParseFloat(m[2], 64)
				out[m[1]] = v
			}
		}
		return out
	}
}
