package rules

import (
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestArenaRunServiceGroup(t *testing.T) {
	redis := &v1alpha1.WorkspaceRedis{URL: "redis://r:6379/0"}
	sess := &v1alpha1.WorkspaceServiceBlock{URL: "http://s"}
	ws := func(groups ...v1alpha1.WorkspaceServiceGroup) *v1alpha1.Workspace {
		return &v1alpha1.Workspace{Spec: v1alpha1.WorkspaceSpec{Services: groups}}
	}
	cases := []struct {
		name        string
		tmpl        v1alpha1.ArenaJobSpec
		ws          *v1alpha1.Workspace
		group, fail string
		retry       bool
	}{
		{"nothing needed", v1alpha1.ArenaJobSpec{}, ws(v1alpha1.WorkspaceServiceGroup{Name: "a"}, v1alpha1.WorkspaceServiceGroup{Name: "b"}), "", "", false},
		{"only group with redis", v1alpha1.ArenaJobSpec{}, ws(v1alpha1.WorkspaceServiceGroup{Name: "a", Redis: redis}), "a", "", false},
		{"ambiguous", v1alpha1.ArenaJobSpec{}, ws(v1alpha1.WorkspaceServiceGroup{Name: "a", Redis: redis}, v1alpha1.WorkspaceServiceGroup{Name: "b"}), "", v1alpha1.ArenaRunReasonServiceGroupAmbiguous, false},
		{"named missing with redis", v1alpha1.ArenaJobSpec{ServiceGroup: "x"}, ws(v1alpha1.WorkspaceServiceGroup{Name: "a", Redis: redis}), "", v1alpha1.ArenaRunReasonServiceGroupNotFound, false},
		{"named missing session only", v1alpha1.ArenaJobSpec{ServiceGroup: "x", SessionRecording: true}, ws(v1alpha1.WorkspaceServiceGroup{Name: "a", Session: sess}), "", "", true},
		{"no groups, datagen", v1alpha1.ArenaJobSpec{Type: v1alpha1.ArenaJobTypeDataGen}, ws(), "", "", true},
		{"group without session-api", v1alpha1.ArenaJobSpec{SessionRecording: true}, ws(v1alpha1.WorkspaceServiceGroup{Name: "a"}), "a", "", true},
		{"named among several", v1alpha1.ArenaJobSpec{ServiceGroup: "b"}, ws(v1alpha1.WorkspaceServiceGroup{Name: "a", Redis: redis}, v1alpha1.WorkspaceServiceGroup{Name: "b", Redis: redis}), "b", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := ArenaRunServiceGroup(&c.tmpl, c.ws)
			name := ""
			if g.Group != nil {
				name = g.Group.Name
			}
			if name != c.group || g.FailReason != c.fail || (g.RetryMessage != "") != c.retry {
				t.Fatalf("got group %q fail %q retry %q", name, g.FailReason, g.RetryMessage)
			}
		})
	}
}
