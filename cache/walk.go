package cache

import (
	"context"
	"strings"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/paths"
)

// hit is a complete path found by a tree walk, with its latest message.
type hit struct {
	path string
	ref  Ref
}

// treePage is a validated page request of a tree walk: its size and the
// path it resumes after (nil for the first page).
type treePage struct {
	n     int
	after []string
}

// parseTreePage validates a tree walk's limit and cursor; queries call it
// before authorizing, so that invalid input is answered as such whatever
// the caller's grants.
func (s *Service) parseTreePage(cursorText string, limit int) (treePage, error) {
	n, err := s.limit(limit)
	if err != nil {
		return treePage{}, err
	}
	c, err := decodeCursor(cursorText, cursorTree)
	if err != nil {
		return treePage{}, err
	}
	tp := treePage{n: n}
	if c.Path != "" {
		if paths.Validate(c.Path) != nil {
			return treePage{}, herald.Errorf(herald.EInvalid, "cursor is not one this query returned")
		}
		tp.after = paths.Split(c.Path)
	}
	return tp, nil
}

// walkPage returns one page of the complete paths matching pat, in path
// order (a node before its children, siblings in byte order of their words),
// resuming after the page's path.
func (s *Service) walkPage(ctx context.Context, pat paths.Pattern, tp treePage) ([]hit, Page, error) {
	n, after := tp.n, tp.after
	w := walker{ctx: ctx, store: s.store, pat: pat, want: n + 1}
	if err := w.resume(after); err != nil {
		return nil, Page{}, err
	}
	var page Page
	if len(w.hits) > n {
		w.hits = w.hits[:n]
		page.NextCursor = encodeCursor(cursor{Kind: cursorTree, Path: w.hits[n-1].path})
	}
	return w.hits, page, nil
}

// walker walks the path tree depth first, visiting only the subtrees where
// the pattern can still match, and collects up to want hits.
type walker struct {
	ctx   context.Context
	store Store
	pat   paths.Pattern
	want  int
	hits  []hit
}

// Bounds of how many children one Store.Children call fetches: enough for
// the hits still wanted (a small page does not read 256 children), at most
// maxChildChunk (a node with a million children is read in pieces).
const (
	minChildChunk = 16
	maxChildChunk = 256
)

func (w *walker) full() bool { return len(w.hits) >= w.want }

// resume walks everything that comes after the path after in walk order:
// first the subtree below it, then the later siblings of each of its
// ancestors, innermost first. An empty after walks the whole tree.
func (w *walker) resume(after []string) error {
	states := make([]paths.State, len(after)+1)
	states[0] = w.pat.Start()
	for i, word := range after {
		states[i+1] = w.pat.Step(states[i], word)
	}
	if len(after) > 0 && w.pat.Alive(states[len(after)]) {
		if err := w.visit(after, states[len(after)], ""); err != nil {
			return err
		}
	}
	for i := len(after) - 1; i >= 0 && !w.full(); i-- {
		if err := w.visit(after[:i], states[i], after[i]); err != nil {
			return err
		}
	}
	if len(after) == 0 {
		return w.visit(nil, states[0], "")
	}
	return nil
}

// visit walks the children of node (in state st) whose words sort after
// afterWord, and their subtrees.
func (w *walker) visit(node []string, st paths.State, afterWord string) error {
	if w.full() {
		return nil
	}
	parent := strings.Join(node, ".")
	literals, any := w.pat.Next(st)
	if !any {
		return w.visitLiterals(node, parent, st, literals, afterWord)
	}
	for {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		chunk := min(maxChildChunk, max(minChildChunk, w.want-len(w.hits)+1))
		children, err := w.store.Children(w.ctx, parent, afterWord, chunk)
		if err != nil {
			return err
		}
		for _, ch := range children {
			if err := w.child(node, st, ch.Word, ch.Latest, true, ch.HasChildren); err != nil || w.full() {
				return err
			}
		}
		if len(children) < chunk {
			return nil
		}
		afterWord = children[len(children)-1].Word
	}
}

// visitLiterals handles a node where only a few named children can match:
// it looks them up directly instead of listing every child.
func (w *walker) visitLiterals(node []string, parent string, st paths.State, literals []string, afterWord string) error {
	for _, word := range literals {
		if afterWord != "" && word <= afterWord {
			continue
		}
		if err := w.child(node, st, word, nil, false, true); err != nil || w.full() {
			return err
		}
	}
	return nil
}

// child considers one child of node: records it when it matches and holds a
// message, then walks below it when the pattern can match deeper and the
// child may have children. known says whether latest was already read from
// the store.
func (w *walker) child(node []string, st paths.State, word string, latest *Ref, known, hasChildren bool) error {
	next := w.pat.Step(st, word)
	path := make([]string, len(node)+1)
	copy(path, node)
	path[len(node)] = word
	if w.pat.Accepts(next) {
		full := strings.Join(path, ".")
		if !known {
			var err error
			if latest, err = w.store.Latest(w.ctx, full); err != nil {
				return err
			}
		}
		if latest != nil {
			w.hits = append(w.hits, hit{path: full, ref: *latest})
			if w.full() {
				return nil
			}
		}
	}
	if hasChildren && w.pat.Alive(next) {
		return w.visit(path, next, "")
	}
	return nil
}
