package pebblestore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// errMergerFile is returned when the OPTIONS file cannot be rewritten.
var errMergerFile = errors.New("pebblestore: cannot name the merge operator in the OPTIONS file")

// adoptMerger names Herald's merge operator in the newest OPTIONS file of
// the DB in dir when that file names Pebble's default one: such a DB was
// written before rollup rows were merges, when Herald never wrote a merge
// at all, so no stored operand depends on the default operator. Pebble
// refuses to open a DB whose OPTIONS name another operator than the one
// it is given; without this, every DB of an older Herald would fail to
// open. A new or already adopted DB is left alone.
func adoptMerger(fs vfs.FS, dir string) error {
	names, err := fs.List(dir)
	if err != nil {
		return nil // no directory yet: Pebble creates it
	}
	newest, num := "", -1
	for _, n := range names {
		rest, ok := strings.CutPrefix(n, "OPTIONS-")
		if !ok {
			continue
		}
		if k, err := strconv.Atoi(rest); err == nil && k > num {
			newest, num = n, k
		}
	}
	if newest == "" {
		return nil
	}
	path := fs.PathJoin(dir, newest)
	f, err := fs.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %v", errMergerFile, err)
	}
	data, err := io.ReadAll(f)
	_ = f.Close()
	if err != nil {
		return fmt.Errorf("%w: %v", errMergerFile, err)
	}
	old := []byte("\n  merger=" + pebble.DefaultMerger.Name + "\n")
	if !bytes.Contains(data, old) {
		return nil
	}
	data = bytes.Replace(data, old, []byte("\n  merger="+mergerName+"\n"), 1)
	tmp := path + ".herald-tmp"
	out, err := fs.Create(tmp, vfs.WriteCategoryUnspecified)
	if err == nil {
		_, err = out.Write(data)
		if err == nil {
			err = out.Sync()
		}
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = fs.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", errMergerFile, err)
	}
	return nil
}
