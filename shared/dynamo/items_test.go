package dynamo

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestInvitationProjection: a read of many invitations brings back every attribute invitationItem
// stores but the index keys, and the item's key. An attribute added to the item without the projection
// would come back empty from a list.
func TestInvitationProjection(t *testing.T) {
	indexKeys := []string{attrGSI1PK, attrGSI1SK, attrGSI2PK, attrGSI2SK, attrGSI3PK, attrGSI3SK, attrGSI5PK, attrGSI5SK}
	var want []string
	item := reflect.TypeFor[invitationItem]()
	for i := range item.NumField() {
		name, _, _ := strings.Cut(item.Field(i).Tag.Get("dynamodbav"), ",")
		if !slices.Contains(indexKeys, name) {
			want = append(want, name)
		}
	}
	var got []string
	for _, attr := range invitationProjection.names {
		got = append(got, attr)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("invitationProjection reads %v; invitationItem stores %v besides its index keys", got, want)
	}
}

// TestProjectionOf: placeholders of its own, one per attribute, in the expression's order; a
// condition's names and the projection's go out together.
func TestProjectionOf(t *testing.T) {
	p := projectionOf("PK", "status", "shown")
	if p.expr != "#p0, #p1, #p2" {
		t.Errorf("expression %q", p.expr)
	}
	want := map[string]string{"#0": "GSI3PK", "#p0": "PK", "#p1": "status", "#p2": "shown"}
	if got := p.with(map[string]string{"#0": "GSI3PK"}); !reflect.DeepEqual(got, want) {
		t.Errorf("with = %v, want %v", got, want)
	}
	if len(p.names) != 3 {
		t.Errorf("with changed the projection's own names: %v", p.names)
	}
}
