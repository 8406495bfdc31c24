package amqp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	rabbit "github.com/rabbitmq/amqp091-go"

	"github.com/heraldmq/herald"
	"github.com/heraldmq/herald/cache"
)

// PathsHeader names the header that lists a message's paths, overriding its
// routing key: a string of comma-separated paths or an array of strings.
const PathsHeader = "paths"

// ErrorHeader carries, on a dead-lettered message, why Herald refused it.
const ErrorHeader = "x-herald-error"

// toPutInput turns an ingested delivery into a cache put:
//   - the paths are the PathsHeader's, else the routing key;
//   - metadata is {"paths": [...]} plus one member per other header, except
//     headers named "x-..." (AMQP extensions set by brokers and plugins,
//     such as x-death);
//   - the body is the message body;
//   - a message-id that is a version 1 UUID becomes the message_uuid (any
//     other message-id is the publisher's own and is ignored);
//   - the expiration (milliseconds) becomes the TTL, rounded up to seconds.
//
// Errors are herald.EInvalid: the message can never be stored as it is.
func toPutInput(d *rabbit.Delivery) (cache.PutInput, error) {
	var in cache.PutInput
	ps, err := deliveryPaths(d)
	if err != nil {
		return in, err
	}
	meta := map[string]any{"paths": ps}
	for name, v := range d.Headers {
		if name == PathsHeader || strings.HasPrefix(strings.ToLower(name), "x-") {
			continue
		}
		jv, err := jsonValue(v)
		if err != nil {
			return in, herald.Errorf(herald.EInvalid, "header %q: %v", name, err)
		}
		meta[name] = jv
	}
	raw, err := json.Marshal(meta) // maps marshal with sorted keys
	if err != nil {
		return in, herald.Errorf(herald.EInvalid, "headers do not make JSON metadata: %v", err)
	}
	in.Metadata = raw
	in.Body = d.Body
	if id, err := uuid.Parse(d.MessageId); err == nil && id.Version() == 1 && id.Variant() == uuid.RFC4122 {
		in.MessageID = id.String()
	}
	if d.Expiration != "" {
		ms, err := strconv.ParseInt(d.Expiration, 10, 64)
		if err != nil || ms < 0 {
			return in, herald.Errorf(herald.EInvalid, "expiration %q is not a number of milliseconds", d.Expiration)
		}
		ttl := max((ms+999)/1000, 1)
		in.TTL = &ttl
	}
	return in, nil
}

// deliveryPaths returns the paths a delivery names.
func deliveryPaths(d *rabbit.Delivery) ([]string, error) {
	h, ok := d.Headers[PathsHeader]
	if !ok {
		if d.RoutingKey == "" {
			return nil, herald.Errorf(herald.EInvalid, "the message has neither a routing key nor a %q header", PathsHeader)
		}
		return []string{d.RoutingKey}, nil
	}
	var ps []string
	switch v := h.(type) {
	case string:
		ps = strings.Split(v, ",")
	case []byte:
		ps = strings.Split(string(v), ",")
	case []any:
		for _, e := range v {
			switch s := e.(type) {
			case string:
				ps = append(ps, s)
			case []byte:
				ps = append(ps, string(s))
			default:
				return nil, herald.Errorf(herald.EInvalid, "header %q must list strings, not %T", PathsHeader, e)
			}
		}
	default:
		return nil, herald.Errorf(herald.EInvalid, "header %q must be a string or an array of strings, not %T", PathsHeader, h)
	}
	for i := range ps {
		ps[i] = strings.TrimSpace(ps[i])
	}
	ps = slices.DeleteFunc(ps, func(p string) bool { return p == "" })
	if len(ps) == 0 {
		return nil, herald.Errorf(herald.EInvalid, "header %q names no path", PathsHeader)
	}
	return ps, nil
}

// jsonValue converts an AMQP field value to a value encoding/json renders
// faithfully.
func jsonValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string, int8, int16, int32, int64, int, uint8, uint16, uint32, uint64:
		return x, nil
	case float32:
		return jsonFloat(float64(x))
	case float64:
		return jsonFloat(x)
	case []byte:
		if utf8.Valid(x) {
			return string(x), nil
		}
		return base64.StdEncoding.EncodeToString(x), nil
	case time.Time:
		return x.UTC().Format(time.RFC3339), nil
	case rabbit.Decimal:
		return json.Number(decimalString(x)), nil
	case rabbit.Table:
		out := make(map[string]any, len(x))
		for k, e := range x {
			jv, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out[k] = jv
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			jv, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = jv
		}
		return out, nil
	default:
		return nil, fmt.Errorf("unsupported AMQP value of type %T", v)
	}
}

func jsonFloat(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%v has no JSON form", f)
	}
	return f, nil
}

// decimalString renders value × 10^-scale.
func decimalString(d rabbit.Decimal) string {
	s := strconv.FormatInt(int64(d.Value), 10)
	if d.Scale == 0 {
		return s
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for len(s) <= int(d.Scale) {
		s = "0" + s
	}
	cut := len(s) - int(d.Scale)
	var b bytes.Buffer
	if neg {
		b.WriteByte('-')
	}
	b.WriteString(s[:cut])
	b.WriteByte('.')
	b.WriteString(s[cut:])
	return b.String()
}
