package filter

import "testing"

// A typical attribute-scope policy and message: three conditions against a
// message carrying five attributes.
func BenchmarkMatchAttributes(b *testing.B) {
	p := mustParse(b, `{"store":["example_corp","other_corp"],"event":[{"prefix":"order_"}],"price_usd":[{"numeric":[">=",100,"<",1000]}]}`, "")
	msg := attrs(
		"store", "String", "example_corp",
		"event", "String", "order_placed",
		"price_usd", "Number", "210.75",
		"customer", "String", "c-123",
		"trace", "Binary", "AAEC",
	)
	if !p.MatchAttributes(msg) {
		b.Fatal("benchmark message does not match")
	}
	b.ReportAllocs()
	for b.Loop() {
		p.MatchAttributes(msg)
	}
}

func BenchmarkMatchAttributesStringArray(b *testing.B) {
	p := mustParse(b, `{"interests":["rugby","tennis"]}`, "")
	msg := attrs("interests", "String.Array", `["baseball","golf","tennis"]`)
	b.ReportAllocs()
	for b.Loop() {
		p.MatchAttributes(msg)
	}
}

func BenchmarkMatchBody(b *testing.B) {
	p := mustParse(b, `{"store":["example_corp"],"order":{"total":[{"numeric":[">",100]}]}}`, ScopeMessageBody)
	body := `{"store":"example_corp","order":{"id":"o-1","total":210.75,"items":[{"sku":"a","qty":1},{"sku":"b","qty":2}]}}`
	if !p.MatchBody(body) {
		b.Fatal("benchmark body does not match")
	}
	b.ReportAllocs()
	for b.Loop() {
		p.MatchBody(body)
	}
}
