package main

import (
	"flag"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/heraldmq/herald/sqs"
)

// awsConfig configures the AWS-compatible APIs (SQS; SNS later) and, for the
// Cassandra engine, the Redis that tracks queue visibility and order.
type awsConfig struct {
	account    string
	region     string
	regions    string // --aws-regions as given; see servedRegions
	accessKeys string // AKID:SECRET[:ACCOUNT],...
	limits     sqsLimits
	// snsKeyFile and snsCertFile hold the key and certificate SNS signs
	// notifications with; empty: one kept in the data directory.
	snsKeyFile, snsCertFile string
	// snsWorkers and snsParallelism size the fan-out and delivery workers.
	snsWorkers, snsParallelism int
	// receiptSecret keys the MAC of receipt handles; nodes of one cluster
	// share it.
	receiptSecret string
	// shards is the shard count of new queues (sqs.Config.Shards).
	shards sqsShards

	redisAddr     string
	redisPassword string
	redisDB       int
	redisPrefix   string
	redisPipeline bool

	// dcPeerRedis and dcLegacyHome place queues in data centers
	// (dcflags.go).
	dcPeerRedis  string
	dcLegacyHome string
}

func (c *awsConfig) register(fs *flag.FlagSet) {
	c.limits = sqsLimits{sqs.DefaultLimits()}
	fs.StringVar(&c.account, "aws-account", "000000000000", "AWS account id of queues and topics when requests are not signed (or keys name no account)")
	fs.StringVar(&c.region, "aws-region", "us-east-1", "AWS region named in ARNs")
	fs.StringVar(&c.regions, "aws-regions", "", "AWS regions requests are served for, comma-separated, or * for any: when --aws-access-keys is set, a signature scoped to another region is refused (SignatureDoesNotMatch); default: any region")
	fs.StringVar(&c.accessKeys, "aws-access-keys", "", "AWS access keys accepted by the SQS/SNS APIs, comma-separated AKID:SECRET or AKID:SECRET:ACCOUNT; when set, every AWS request must carry a valid SigV4 signature (prefer the environment variable)")
	fs.Var(&c.limits, "sqs-limit", "override one SQS limit, NAME=VALUE (repeatable), e.g. MaxMaximumMessageSize=2097152; names: "+strings.Join(limitNames(), ", "))
	fs.Var(&c.shards, "sqs-shards", fmt.Sprintf("message shards of a new SQS queue whose CreateQueue sets none with the tag %s, 1 to %d; 0: the engine's default (docs/sqs.md, \"Shards per queue\"); a queue keeps the count it was created with", sqs.ShardsTag, sqs.MaxShards))
	fs.StringVar(&c.receiptSecret, "sqs-receipt-secret", "", "secret keying SQS receipt handles so clients cannot forge them; every node of a cluster needs the same (prefer the environment variable)")
	fs.StringVar(&c.snsKeyFile, "sns-signing-key-file", "", "PEM RSA private key SNS signs notifications with (with --sns-signing-cert-file; every node of a cluster needs the same); empty: one created in --data-dir")
	fs.StringVar(&c.snsCertFile, "sns-signing-cert-file", "", "PEM certificate of --sns-signing-key-file, served at the SigningCertURL")
	fs.IntVar(&c.snsWorkers, "sns-workers", 8, "SNS fan-out and delivery workers per internal queue on this node")
	fs.IntVar(&c.snsParallelism, "sns-parallelism", 32, "concurrent deliveries of one SNS delivery job")
	fs.StringVar(&c.redisAddr, "redis-addr", "127.0.0.1:6379", "Redis (host:port) keeping queue visibility and order when --store is cassandra; several, comma-separated, are the nodes of a Redis Cluster")
	fs.StringVar(&c.redisPassword, "redis-password", "", "Redis password (prefer the environment variable)")
	fs.IntVar(&c.redisDB, "redis-db", 0, "Redis database number")
	fs.StringVar(&c.redisPrefix, "redis-key-prefix", "herald:sqs:", "prefix of every Redis key Herald writes")
	fs.BoolVar(&c.redisPipeline, "redis-pipeline", true, "send the Redis commands of concurrent requests together (go-redis automatic pipelining: one write and one read for many commands); false: one round trip per command")
	fs.StringVar(&c.dcPeerRedis, "dc-peer-redis", "", "with --cassandra-local-dc: the Redis of every other data center, DC=host:port[,host:port] separated by ';' (each queue is served by the Redis of the data center that created it, from every data center; docs/deploy.md)")
	fs.StringVar(&c.dcLegacyHome, "dc-legacy-home", "", "with --dc-peer-redis: the data center serving queues created before queues had a home; the same on every node; default: the first data center by name")
}

// servedRegions reads --aws-regions: the regions the AWS edge serves
// (awsapi.Config.Regions). Without the flag, or with "*", it is nil: every
// region, as a local endpoint's users expect (queues and topics are scoped
// by region, so regions never mix).
func (c *awsConfig) servedRegions() ([]string, error) {
	text := strings.TrimSpace(c.regions)
	if text == "*" {
		return nil, nil
	}
	var out []string
	for part := range strings.SplitSeq(text, ",") {
		r := strings.TrimSpace(part)
		if r == "" {
			continue
		}
		if !sqs.ValidRegion(r) {
			return nil, fmt.Errorf("--aws-regions: %q is not a region name (lower-case letters, digits and hyphens, e.g. eu-west-1)", r)
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// accessKey is one configured AWS access key.
type accessKey struct {
	id, secret, account string
}

// parseAccessKeys reads --aws-access-keys.
func parseAccessKeys(text string) ([]accessKey, error) {
	var keys []accessKey
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		fields := strings.Split(part, ":")
		if len(fields) < 2 || len(fields) > 3 || fields[0] == "" || fields[1] == "" {
			return nil, fmt.Errorf("--aws-access-keys: want AKID:SECRET or AKID:SECRET:ACCOUNT, got an entry with %d fields", len(fields))
		}
		k := accessKey{id: fields[0], secret: fields[1]}
		if len(fields) == 3 {
			k.account = fields[2]
			if len(k.account) != 12 || strings.Trim(k.account, "0123456789") != "" {
				return nil, fmt.Errorf("--aws-access-keys: account of %s must be 12 digits", k.id)
			}
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// sqsShards is the --sqs-shards flag: 0 (the engine's default) or 1 to
// sqs.MaxShards.
type sqsShards int

func (n *sqsShards) String() string { return strconv.Itoa(int(*n)) }

func (n *sqsShards) Set(text string) error {
	v, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil || v < 0 || v > sqs.MaxShards {
		return fmt.Errorf("want a number of message shards from 1 to %d, or 0 for the engine's default", sqs.MaxShards)
	}
	*n = sqsShards(v)
	return nil
}

// sqsLimits is the --sqs-limit flag: sqs.Limits with NAME=VALUE overrides
// of its integer fields.
type sqsLimits struct{ sqs.Limits }

func (l *sqsLimits) String() string { return "" }

func (l *sqsLimits) Set(text string) error {
	name, value, ok := strings.Cut(text, "=")
	if !ok {
		return fmt.Errorf("want NAME=VALUE, got %q", text)
	}
	f := reflect.ValueOf(&l.Limits).Elem().FieldByName(strings.TrimSpace(name))
	if !f.IsValid() || f.Kind() != reflect.Int {
		return fmt.Errorf("unknown SQS limit %q (known: %s)", name, strings.Join(limitNames(), ", "))
	}
	n, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil || n < 0 {
		return fmt.Errorf("limit %s: %q is not a non-negative integer", name, value)
	}
	f.SetInt(int64(n))
	return nil
}

// limitNames lists the names --sqs-limit accepts.
func limitNames() []string {
	t := reflect.TypeOf(sqs.Limits{})
	names := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		if t.Field(i).Type.Kind() == reflect.Int {
			names = append(names, t.Field(i).Name)
		}
	}
	sort.Strings(names)
	return names
}
