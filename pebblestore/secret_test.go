package pebblestore

import (
	"bytes"
	"testing"
)

// TestSecretKeptAndDistinct: a secret is made once, kept across a reopen,
// and differs by name and from one store to another.
func TestSecretKeptAndDistinct(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{ReapInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	a, err := db.Secret("receipt")
	if err != nil || len(a) != secretLen {
		t.Fatalf("Secret = %x, %v", a, err)
	}
	if again, _ := db.Secret("receipt"); !bytes.Equal(again, a) {
		t.Fatalf("Secret changed within one open: %x then %x", a, again)
	}
	if other, _ := db.Secret("other"); bytes.Equal(other, a) {
		t.Fatal("two names gave the same secret")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := openDBIn(t, dir, nil, Options{}).Secret("receipt"); err != nil || !bytes.Equal(got, a) {
		t.Fatalf("after reopening: %x, %v; want %x", got, err, a)
	}
	if got, _ := openDB(t, nil, Options{}).Secret("receipt"); bytes.Equal(got, a) {
		t.Fatal("another store made the same secret")
	}
}
