package agentruntime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/altairalabs/omnia/reconcile/prober"
	"github.com/altairalabs/omnia/rules"
)

// Failure reasons of a measurement (prober.Outcome.Failure, in
// status.rollout.analysis.metrics[].lastError).
const (
	// AnalysisQueryFailed: no answer from Prometheus (connection, timeout).
	AnalysisQueryFailed = "QueryFailed"
	// AnalysisBadResponse: Prometheus answered with an error status, an
	// error body, or a body that is not an instant-query result.
	AnalysisBadResponse = "BadResponse"
)

// queryPrometheus runs one instant query against address's
// /api/v1/query and returns the values as the Outcome's Detail (a JSON
// list of numbers), or a Failure. The body read is bounded
// (analysisMaxBody) and the client carries the timeout.
func queryPrometheus(ctx context.Context, c *http.Client, address, query string) prober.Outcome {
	u := strings.TrimSuffix(address, "/") + "/api/v1/query?" + url.Values{"query": {query}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return prober.Outcome{Failure: AnalysisQueryFailed, Detail: err.Error()}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return prober.Outcome{Failure: AnalysisQueryFailed, Detail: redactURL(err, address)}
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, analysisMaxBody+1))
	if err != nil {
		return prober.Outcome{StatusCode: resp.StatusCode, Failure: AnalysisQueryFailed, Detail: "reading the response: " + err.Error()}
	}
	if len(body) > analysisMaxBody {
		return prober.Outcome{StatusCode: resp.StatusCode, Failure: AnalysisBadResponse, Detail: fmt.Sprintf("the response exceeds %d bytes", analysisMaxBody)}
	}
	values, err := parsePrometheus(resp.StatusCode, body)
	if err != nil {
		return prober.Outcome{StatusCode: resp.StatusCode, Failure: AnalysisBadResponse, Detail: err.Error()}
	}
	raw, err := json.Marshal(values)
	if err != nil {
		return prober.Outcome{StatusCode: resp.StatusCode, Failure: AnalysisBadResponse, Detail: err.Error()}
	}
	return prober.Outcome{StatusCode: resp.StatusCode, Detail: string(raw)}
}

// redactURL keeps a transport error's message without the query string
// (the URL is the user's; the error repeats it in full).
func redactURL(err error, address string) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Op + " " + address + ": " + ue.Err.Error()
	}
	return err.Error()
}

// promResponse is the instant-query API's envelope.
type promResponse struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

// parsePrometheus reads an instant-query answer (pure): a vector gives one
// value per sample, a scalar one value, a matrix the last value of each
// series; at most rules.RolloutAnalysisMaxResults values. NaN and ±Inf are
// dropped (CEL compares them to nothing sensibly).
func parsePrometheus(status int, body []byte) ([]float64, error) {
	var r promResponse
	if err := json.Unmarshal(body, &r); err != nil {
		if status != http.StatusOK {
			return nil, fmt.Errorf("HTTP %d", status)
		}
		return nil, fmt.Errorf("not a Prometheus answer: %v", err)
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("HTTP %d: Prometheus %s: %s", status, r.ErrorType, truncate(r.Error, 200))
	}
	var samples [][2]any
	switch r.Data.ResultType {
	case "scalar":
		var s [2]any
		if err := json.Unmarshal(r.Data.Result, &s); err != nil {
			return nil, fmt.Errorf("scalar result: %v", err)
		}
		samples = append(samples, s)
	case "vector":
		var v []struct {
			Value [2]any `json:"value"`
		}
		if err := json.Unmarshal(r.Data.Result, &v); err != nil {
			return nil, fmt.Errorf("vector result: %v", err)
		}
		for _, s := range v {
			samples = append(samples, s.Value)
		}
	case "matrix":
		var m []struct {
			Values [][2]any `json:"values"`
		}
		if err := json.Unmarshal(r.Data.Result, &m); err != nil {
			return nil, fmt.Errorf("matrix result: %v", err)
		}
		for _, s := range m {
			if len(s.Values) > 0 {
				samples = append(samples, s.Values[len(s.Values)-1])
			}
		}
	default:
		return nil, fmt.Errorf("result type %q is not a number", r.Data.ResultType)
	}
	out := make([]float64, 0, min(len(samples), rules.RolloutAnalysisMaxResults))
	for _, s := range samples {
		if len(out) == rules.RolloutAnalysisMaxResults {
			break
		}
		str, ok := s[1].(string)
		if !ok {
			return nil, fmt.Errorf("sample value %v is not a string", s[1])
		}
		f, err := strconv.ParseFloat(str, 64)
		if err != nil {
			return nil, fmt.Errorf("sample value %q: %v", str, err)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		out = append(out, f)
	}
	return out, nil
}
