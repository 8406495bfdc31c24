// Package paths validates Herald message paths and matches them against
// subscription patterns.
//
// A path addresses one message. It is a sequence of 1 to [MaxWords] words
// joined by single dots, at most [MaxBytes] bytes long, for example
//
//	feeds.breaking-news.12345
//	sensors.berlin.2014-02-01T09:39Z
//
// Each word is 1 to [MaxWordBytes] bytes drawn from A-Z, a-z, 0-9, '_', ':'
// and '-'. Every word but the last names the collection the message belongs to
// ([Collection]); the last word is its hash key within it ([HashKey]).
//
// A pattern selects paths. It is written like a path, except that any word
// may instead be exactly "*", which stands for exactly one word, or exactly
// "#", which stands for zero or more words. Matching follows the topic
// exchange of AMQP 0-9-1 as RabbitMQ implements it: "a.#" matches "a" and
// "a.b.c", "a.*" matches "a.b" but not "a", and "#" matches every path.
//
// [Pattern.Match] tests a single path. [Pattern.Start], [Pattern.Step] and
// friends expose the matcher one word at a time, for query engines that walk a
// tree of stored paths and want to prune subtrees that cannot match. [Index]
// holds many patterns, each with a value, and finds all that match a path
// without looking at every pattern.
package paths
