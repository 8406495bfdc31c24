package sns

import (
	"context"
	"encoding/json"
	"fmt"
)

// getJSONRecord reads the account record (account, kind, key) as a JSON
// document of type T; what names it in errors ("sandbox number +1555...").
// A missing record is the Store's ENotFound.
func getJSONRecord[T any](ctx context.Context, st regionalStore, account, kind, key, what string) (*T, error) {
	v, err := st.GetAccountRecord(ctx, account, kind, key)
	if err != nil {
		return nil, err
	}
	r := new(T)
	if err := json.Unmarshal(v, r); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return r, nil
}

// putJSONRecord stores v as the JSON document of account record (account,
// kind, key).
func putJSONRecord(ctx context.Context, st regionalStore, account, kind, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return st.PutAccountRecord(ctx, account, kind, key, b)
}
