package rollup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/heraldmq/herald/access"
	"github.com/heraldmq/herald/cache"
)

// Live tiles: a rollup with "tiles": true publishes, at most once per
// TileInterval per scope, the current values of every scope whose counts
// changed into the message cache, at the path
//
//	rollups.ACCOUNT.NAME.V1[.V2...]
//
// (the scope's values, each made a path word: bytes a path word cannot
// hold, and '_', are written _XX in hex; a value too long for a word is
// its hash). latest, GET /v1/events and WebSocket subscribers then see a
// live dashboard with no machinery of their own. A tile's body is JSON:
// the scope and, per period, the current bucket's values.

// Putter stores a message in the cache; *cache.Service satisfies it.
type Putter interface {
	Put(ctx context.Context, in cache.PutInput) (*cache.Message, bool, error)
}

// Tile limits.
const (
	TileInterval = time.Second
	tileTTL      = int64(600) // seconds a tile stays in the cache's history
	maxDirty     = 10000      // scopes remembered per interval
)

// tileIdentity writes the tiles: Herald itself, for the rollup's owner.
var tileIdentity = access.Internal("rollup-tiles")

// tileKey is one scope of one rollup to publish.
type tileKey struct {
	account, name string
	scope         int
	key           string
}

// dirtyTiles are the scopes changed since the last publish.
type dirtyTiles struct {
	mu      sync.Mutex
	m       map[tileKey]struct{}
	dropped int64
}

func (t *dirtyTiles) mark(d *Definition, b *Batch) {
	if !d.Tiles {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[tileKey]struct{}{}
	}
	for r := range b.Rows() {
		if r.Dim != Total || r.Unit != d.Periods[0].Unit {
			continue
		}
		k := tileKey{d.Account, d.Name, r.Scope, r.Key}
		if _, ok := t.m[k]; !ok && len(t.m) >= maxDirty {
			t.dropped++
			continue
		}
		t.m[k] = struct{}{}
	}
}

func (t *dirtyTiles) take() map[tileKey]struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.m
	t.m = nil
	return m
}

// TilePath is the cache path of a scope's tile.
func TilePath(account, name string, values []string) string {
	words := []string{"rollups", account, name}
	for _, v := range values {
		words = append(words, tileWord(v))
	}
	return strings.Join(words, ".")
}

func tileWord(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == ':' {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
			b.WriteString(hex.EncodeToString([]byte{c}))
		}
	}
	if b.Len() > 128 || b.Len() == 0 {
		h := sha256.Sum256([]byte(v))
		return "h_" + hex.EncodeToString(h[:20])
	}
	return b.String()
}

// tile is a tile's body.
type tile struct {
	Rollup  string              `json:"rollup"`
	Scope   map[string]string   `json:"scope"`
	At      time.Time           `json:"at"`
	Metrics []string            `json:"metrics"`
	Periods map[Unit]tilePeriod `json:"periods"`
}

type tilePeriod struct {
	Bucket time.Time `json:"bucket"`
	Values []int64   `json:"values"`
}

// publishTiles writes the tiles of the scopes marked since the last call.
func (s *Service) publishTiles(ctx context.Context) {
	dirty := s.tiles.take()
	if len(dirty) == 0 {
		return
	}
	defs := map[[2]string]*Definition{}
	for k := range dirty {
		dk := [2]string{k.account, k.name}
		d, ok := defs[dk]
		if !ok {
			var err error
			if d, err = s.store.GetDefinition(ctx, k.account, k.name); err != nil {
				d = nil
			}
			defs[dk] = d
		}
		if d == nil || !d.Tiles || k.scope >= len(d.Scopes) {
			continue
		}
		if err := s.publishTile(ctx, d, k); err != nil {
			s.log().Warn("rollup: cannot publish a tile", "rollup", d.Name, "err", err)
			return
		}
		s.Stats.Tiles.Add(1)
	}
}

func (s *Service) publishTile(ctx context.Context, d *Definition, k tileKey) error {
	now := s.cfg.Clock()
	rows := make([]Row, len(d.Periods))
	for i, p := range d.Periods {
		rows[i] = Row{Scope: k.scope, Key: k.key, Unit: p.Unit, Dim: Total}
		if p.Unit != All {
			rows[i].Bucket = p.Unit.Bucket(now, d.Location()).Unix()
		}
	}
	sums, err := s.store.ReadRows(ctx, d, rows)
	if err != nil {
		return err
	}
	values := strings.Split(k.key, Sep)
	t := tile{Rollup: d.Name, Scope: map[string]string{}, At: now.UTC(), Metrics: d.Metrics, Periods: map[Unit]tilePeriod{}}
	for i, m := range d.Scopes[k.scope] {
		t.Scope[m] = values[i]
	}
	for i, p := range d.Periods {
		v := sums[i]
		if v == nil {
			v = make([]int64, len(d.Metrics))
		}
		t.Periods[p.Unit] = tilePeriod{Bucket: time.Unix(rows[i].Bucket, 0).In(d.Location()), Values: v}
	}
	body, _ := json.Marshal(t)
	meta, _ := json.Marshal(map[string]any{"paths": []string{TilePath(d.Account, d.Name, values)}, "rollup": d.Name, "account": d.Account})
	id, err := uuid.NewUUID()
	if err != nil {
		return err
	}
	ttl := tileTTL
	_, _, err = s.cfg.Cache.Put(access.WithIdentity(ctx, tileIdentity), cache.PutInput{MessageID: id.String(), ReplicaID: id.String(), Metadata: meta, Body: body, TTL: &ttl})
	return err
}

// runTiles publishes tiles every TileInterval until ctx ends.
func (s *Service) runTiles(ctx context.Context) {
	t := time.NewTicker(TileInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.publishTiles(ctx)
		}
	}
}
