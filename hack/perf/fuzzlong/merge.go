package main

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/altairalabs/omnia/hack/perf/perfreport"
)

// mergeEarlier keeps, from an earlier fuzzing section, the rows, targets
// and notes of the targets this campaign did not run (`-run` re-fuzzes some
// targets, e.g. after fixing what one found), so the section always covers
// every target. The summary and time are this campaign's.
func mergeEarlier(now perfreport.Section, earlier []perfreport.Section) perfreport.Section {
	var prev *perfreport.Section
	for i := range earlier {
		if earlier[i].ID == now.ID {
			prev = &earlier[i]
		}
	}
	if prev == nil || len(prev.Tables) == 0 || len(now.Tables) == 0 {
		return now
	}
	ran := map[string]bool{}
	for _, r := range now.Tables[0].Rows {
		ran[r[0]] = true
	}
	owner := func(text string) string { name, _, _ := strings.Cut(text, ":"); return name }
	var rows [][]string
	for _, r := range prev.Tables[0].Rows {
		if len(r) > 0 && !ran[r[0]] {
			rows = append(rows, r)
		}
	}
	// Copy the tables: the section is a value, but its slices are shared.
	now.Tables = append([]perfreport.Table(nil), now.Tables...)
	now.Tables[0].Rows = append(rows, now.Tables[0].Rows...)
	var targets []perfreport.Target
	for _, t := range prev.Targets {
		if !ran[owner(t.Name)] {
			targets = append(targets, t)
		}
	}
	now.Targets = append(targets, now.Targets...)
	var notes []string
	for _, n := range prev.Notes {
		if !ran[owner(n)] {
			notes = append(notes, n)
		}
	}
	now.Notes = append(notes, now.Notes...)
	now.Summary += " Targets fuzzed in an earlier campaign keep that campaign's figures."
	return now
}

// readEarlier reads the sections already in dir (none when it is absent).
func readEarlier(dir string) ([]perfreport.Section, error) {
	s, err := perfreport.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return s, err
}
