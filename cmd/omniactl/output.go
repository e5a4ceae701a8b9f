package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/altairalabs/omnia/rules"
)

// Output formats of check.
const (
	formatTable = "table"
	formatJSON  = "json"
	formatSARIF = "sarif"
	formatJUnit = "junit"
)

// jsonFinding is one finding in -o json: the document it is in and the
// finding itself.
type jsonFinding struct {
	File      string         `json:"file"`
	Document  int            `json:"document"`
	Line      int            `json:"line"`
	Kind      string         `json:"kind"`
	Namespace string         `json:"namespace"`
	Name      string         `json:"name"`
	RuleID    string         `json:"ruleID"`
	Field     string         `json:"field"`
	Severity  rules.Severity `json:"severity"`
	Stage     rules.Stage    `json:"stage"`
	Source    rules.Source   `json:"source"`
	Reason    string         `json:"reason"`
	Condition string         `json:"condition"`
	Message   string         `json:"message"`
}

func (r *report) jsonFindings() []jsonFinding {
	out := []jsonFinding{}
	for _, res := range r.Results {
		for _, f := range res.Findings {
			out = append(out, jsonFinding{
				File: res.File, Document: res.Document, Line: res.Line,
				Kind: res.Kind, Namespace: res.Namespace, Name: res.Name,
				RuleID: f.RuleID, Field: f.Field, Severity: f.Severity, Stage: f.Stage, Source: f.Source,
				Reason: f.Reason, Condition: f.Condition, Message: f.Message,
			})
		}
	}
	return out
}

// writeReport renders the report in format.
func writeReport(w io.Writer, rep *report, format string) error {
	switch format {
	case formatTable:
		return writeTable(w, rep)
	case formatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep.jsonFindings())
	case formatSARIF:
		return writeSARIF(w, rep)
	case formatJUnit:
		return writeJUnit(w, rep)
	}
	return fmt.Errorf("unknown output format %q (want table, json, sarif or junit)", format)
}

func objectName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func writeTable(w io.Writer, rep *report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := false
	for _, res := range rep.Results {
		for _, f := range res.Findings {
			if !header {
				fmt.Fprintln(tw, "FILE\tDOC\tKIND\tNAME\tRULE\tSEVERITY\tFIELD\tMESSAGE")
				header = true
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", res.File, res.Document, res.Kind,
				objectName(res.Namespace, res.Name), f.RuleID, f.Severity, f.Field, oneLine(f.Message))
		}
	}
	return tw.Flush()
}

// oneLine keeps a table row on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// summary is the closing line of the table output (written to stderr).
func summary(rep *report) string {
	deny, warn := rep.counts()
	return fmt.Sprintf("%d Omnia document(s) checked (%d fact, %d skipped): %d denied, %d warning(s)",
		len(rep.Results), rep.Facts, rep.Skipped, deny, warn)
}

// ---------------------------------------------------------------- SARIF 2.1.0

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      *sarifText     `json:"fullDescription,omitempty"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties,omitempty"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
	Props     map[string]any  `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

func sarifLevel(s rules.Severity) string {
	if s == rules.SeverityDeny {
		return "error"
	}
	return "warning"
}

// sarifURI names a file as a relative URI reference; stdin is "stdin".
func sarifURI(file string) string {
	if file == stdinName {
		return "stdin"
	}
	return strings.ReplaceAll(filepath.ToSlash(file), " ", "%20")
}

// writeSARIF writes a SARIF 2.1.0 log: the catalog's rules (and any derived
// schema rule IDs the findings carry) as the driver's rules, one result per
// finding located at its file and document.
func writeSARIF(w io.Writer, rep *report) error {
	var descs []sarifRule
	index := map[string]int{}
	for _, r := range rep.rules().Rules() {
		index[r.ID] = len(descs)
		descs = append(descs, sarifRule{
			ID:                   r.ID,
			ShortDescription:     sarifText{Text: firstSentence(r.Doc)},
			FullDescription:      &sarifText{Text: r.Doc},
			DefaultConfiguration: sarifConfig{Level: sarifLevel(r.Severity)},
			Properties:           ruleProperties(r),
		})
	}
	var derived []string
	for _, res := range rep.Results {
		for _, f := range res.Findings {
			if _, ok := index[f.RuleID]; !ok {
				index[f.RuleID] = -1
				derived = append(derived, f.RuleID)
			}
		}
	}
	sort.Strings(derived)
	for _, id := range derived {
		index[id] = len(descs)
		descs = append(descs, sarifRule{
			ID:                   id,
			ShortDescription:     sarifText{Text: "Schema constraint of the CRD (derived rule ID <kind>/schema:<field>:<constraint>), enforced by the API server."},
			DefaultConfiguration: sarifConfig{Level: "error"},
			Properties:           map[string]any{"source": string(rules.SourceSchema), "stage": string(rules.StageAdmission), "docs": "docs/rules.md#derived-schema-rule-ids"},
		})
	}
	results := []sarifResult{}
	for _, res := range rep.Results {
		for _, f := range res.Findings {
			results = append(results, sarifResult{
				RuleID:    f.RuleID,
				RuleIndex: index[f.RuleID],
				Level:     sarifLevel(f.Severity),
				Message:   sarifText{Text: f.Field + ": " + f.Message},
				Locations: []sarifLocation{{
					PhysicalLocation: sarifPhysical{
						ArtifactLocation: sarifArtifact{URI: sarifURI(res.File)},
						Region:           &sarifRegion{StartLine: max(res.Line, 1)},
					},
					LogicalLocations: []sarifLogical{{
						FullyQualifiedName: res.Kind + "/" + objectName(res.Namespace, res.Name) + "/" + f.Field,
						Kind:               "member",
					}},
				}},
				Props: map[string]any{
					"document":  res.Document,
					"kind":      res.Kind,
					"namespace": res.Namespace,
					"name":      res.Name,
					"field":     f.Field,
					"severity":  string(f.Severity),
					"stage":     string(f.Stage),
					"reason":    f.Reason,
					"condition": f.Condition,
				},
			})
		}
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool:    sarifTool{Driver: sarifDriver{Name: "omniactl", Rules: descs}},
			Results: results,
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

func ruleProperties(r *rules.Rule) map[string]any {
	p := map[string]any{
		"kinds":  r.Kinds,
		"stage":  string(r.Stage),
		"source": string(r.Source),
		"spec":   r.Spec,
		"docs":   "docs/rules.md#" + r.ID,
	}
	if r.Source == rules.SourcePolicy {
		// A policy rule is documented by its policy, not by docs/rules.md.
		p["docs"] = "docs/policies.md"
	}
	if r.Reason != "" {
		p["reason"] = r.Reason
	}
	if r.Condition != "" {
		p["condition"] = r.Condition
	}
	return p
}

// firstSentence is a rule doc's first sentence.
func firstSentence(doc string) string {
	for i := 0; i+1 < len(doc); i++ {
		if doc[i] == '.' && (doc[i+1] == ' ' || doc[i+1] == '\n') {
			return doc[:i+1]
		}
	}
	return doc
}

// ---------------------------------------------------------------- JUnit XML

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	Failures  []junitFailure `xml:"failure"`
	SystemOut *junitText     `xml:"system-out,omitempty"`
}

type junitText struct {
	Text string `xml:",cdata"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// writeJUnit writes one test suite per file and one test case per Omnia
// document; each deny finding is a failure, warnings go to system-out.
func writeJUnit(w io.Writer, rep *report) error {
	out := junitSuites{Name: "omniactl check"}
	suiteOf := map[string]int{}
	for _, res := range rep.Results {
		i, ok := suiteOf[res.File]
		if !ok {
			i = len(out.Suites)
			suiteOf[res.File] = i
			out.Suites = append(out.Suites, junitSuite{Name: res.File})
		}
		c := junitCase{
			Name:      "document " + strconv.Itoa(res.Document) + ": " + res.Kind + " " + objectName(res.Namespace, res.Name),
			Classname: res.File,
		}
		var warnings []string
		for _, f := range res.Findings {
			if f.Severity == rules.SeverityDeny {
				c.Failures = append(c.Failures, junitFailure{Message: f.String(), Type: f.RuleID, Text: findingDetail(f)})
			} else {
				warnings = append(warnings, "warning: "+f.String())
			}
		}
		if len(warnings) > 0 {
			c.SystemOut = &junitText{Text: strings.Join(warnings, "\n")}
		}
		s := &out.Suites[i]
		s.Tests++
		out.Tests++
		if len(c.Failures) > 0 {
			s.Failures++
			out.Failures++
		}
		s.Cases = append(s.Cases, c)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func findingDetail(f rules.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "rule: %s\nfield: %s\nseverity: %s\nstage: %s\n", f.RuleID, f.Field, f.Severity, f.Stage)
	if f.Condition != "" || f.Reason != "" {
		fmt.Fprintf(&b, "condition: %s\nreason: %s\n", f.Condition, f.Reason)
	}
	fmt.Fprintf(&b, "message: %s", f.Message)
	return b.String()
}
