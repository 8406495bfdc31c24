package access

import "testing"

func TestGrants(t *testing.T) {
	g := Grants{
		Subscribe: []string{"feeds.#", "devices.42.*"},
		Publish:   []string{"devices.42.#"},
		Queues:    []string{"device-42"},
	}
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"subscribe inside", g.CanSubscribe("feeds.a.*"), true},
		{"subscribe second grant", g.CanSubscribe("devices.42.temp"), true},
		{"subscribe wider", g.CanSubscribe("devices.#"), false},
		{"subscribe other", g.CanSubscribe("admin.x"), false},
		{"subscribe invalid", g.CanSubscribe("feeds..x"), false},
		{"publish match", g.CanPublish("devices.42.a.b"), true},
		{"publish exact root", g.CanPublish("devices.42"), true},
		{"publish other", g.CanPublish("devices.43.a"), false},
		{"publish pattern is not a path", g.CanPublish("devices.42.*"), false},
		{"queue listed", g.CanQueue("device-42"), true},
		{"queue not listed", g.CanQueue("device-43"), false},
		{"zero subscribe", Grants{}.CanSubscribe("a"), false},
		{"zero publish", Grants{}.CanPublish("a"), false},
		{"zero queue", Grants{}.CanQueue("q"), false},
		{"all subscribe", AllowAll().CanSubscribe("#"), true},
		{"all subscribe invalid", AllowAll().CanSubscribe("a..b"), false},
		{"all publish", AllowAll().CanPublish("a.b"), true},
		{"all publish invalid", AllowAll().CanPublish("a.*"), false},
		{"all queue", AllowAll().CanQueue("anything"), true},
		{"all empty queue", AllowAll().CanQueue(""), false},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if !AllowAll().All() || g.All() {
		t.Error("All() wrong")
	}
}
