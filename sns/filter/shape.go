package filter

// shape is the part of a JSON body a policy object looks at: the member
// names it (or any of its $or alternatives) reads, and for each, whether
// it reads the member as a leaf and which members of a nested object it
// reads. Decoding a body keeps only what the shape names.
type shape struct {
	keys map[string]*member
}

type member struct {
	leaf bool   // read as values (scalars and arrays of scalars)
	sub  *shape // read as a nested object, or nil
}

// shapeOf merges the keys n and its $or alternatives read.
func shapeOf(n *node) *shape {
	s := &shape{keys: map[string]*member{}}
	s.add(n)
	return s
}

func (s *shape) add(n *node) {
	for i := range n.fields {
		f := &n.fields[i]
		m := s.keys[f.key]
		if m == nil {
			m = &member{}
			s.keys[f.key] = m
		}
		if f.child == nil {
			m.leaf = true
			continue
		}
		if m.sub == nil {
			m.sub = &shape{keys: map[string]*member{}}
		}
		m.sub.add(f.child)
	}
	for _, group := range n.ors {
		for _, alt := range group {
			s.add(alt)
		}
	}
}
