package amqp

import (
	"reflect"
	"testing"
)

func TestLinks(t *testing.T) {
	var l Links
	if len(l.Up()) != 0 || len(l.Down()) != 0 {
		t.Fatal("a new Links knows of connections")
	}
	l.set("events publisher", false)
	l.set("ingest consumer", true)
	l.set("events consumer", false)
	if got, want := l.Down(), []string{"events consumer", "events publisher"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Down = %v, want %v", got, want)
	}
	l.set("events publisher", true)
	l.set("events consumer", true)
	if d := l.Down(); len(d) != 0 {
		t.Fatalf("Down = %v after every link came up", d)
	}
	var none *Links
	none.set("x", true) // a nil Links ignores updates
}
