package awscur

import (
	"encoding/binary"
	"errors"

	"github.com/gpucost/gpucost"
)

// A row's map columns and flattened tag columns are kept in the batch arena as records
// [kind][4-byte length][body], where kind is the map's field or encTagCol. The bodies hold
// handles to the values (dictionary indexes, or bytes on plain pages) with the generation of the
// dictionaries they index, so equal records mean equal maps and the records key the product and
// tag caches: a distinct tag set or product is decoded once, and a row costs a hash of a few
// indexes.
const encTagCol = 0xfe

var errRecord = errors.New("map record does not decode")

// fillMaps reads the map and tag columns of n rows into the batch arena.
func (pr *pqRow) fillMaps(n int) error {
	b := pr.b
	b.arena = b.arena[:0]
	for r := range n {
		b.prod[r] = [2]int{-1, -1}
		start := len(b.arena)
		for _, m := range pr.maps {
			from := len(b.arena)
			var err error
			if b.arena, err = pr.readMap(m, b.arena); err != nil {
				return err
			}
			if m.field == mProduct {
				b.prod[r], start = [2]int{from, len(b.arena)}, len(b.arena)
			}
		}
		for i, l := range pr.tagCols {
			var err error
			if b.arena, err = pr.readTagCol(i, l, b.arena); err != nil {
				return err
			}
		}
		b.tags[r] = [2]int{start, len(b.arena)}
	}
	return nil
}

// beginRecord appends a record header and returns where its length goes.
func beginRecord(buf []byte, kind byte) ([]byte, int) {
	buf = append(buf, kind, 0, 0, 0, 0)
	return buf, len(buf) - 4
}

func endRecord(buf []byte, at int) []byte {
	binary.LittleEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	return buf
}

// readMap appends the current row of a map column as a record. Of the product map only the
// entries the reader uses are kept, so its records are short and equal for equal products.
func (pr *pqRow) readMap(m *pqMap, buf []byte) ([]byte, error) {
	k, v := &m.key.cur, &m.value.cur
	kidx, kok := k.rowDict()
	var vidx []int32
	vok := false
	if kok {
		vidx, vok = v.rowDict()
	}
	if kok && vok {
		return pr.dictRecord(m, kidx, vidx, buf)
	}
	var err error
	pr.plain = pr.plain[:0]
	if kok {
		pr.kents = pr.kents[:0]
		for _, x := range kidx {
			pr.kents = append(pr.kents, ent{idx: x})
		}
	} else if pr.kents, pr.plain, err = k.row(pr.kents[:0], pr.plain); err != nil {
		return nil, pr.damaged(m.key, err)
	}
	if pr.vents, pr.plain, err = v.row(pr.vents[:0], pr.plain); err != nil {
		return nil, pr.damaged(m.value, err)
	}
	if len(pr.kents) != len(pr.vents) {
		return nil, pr.damaged(m.value, errPage)
	}
	buf, at := beginRecord(buf, byte(m.field))
	buf = binary.AppendUvarint(binary.AppendUvarint(buf, k.Gen), v.Gen)
	for i, ke := range pr.kents {
		ve := pr.vents[i]
		if ke.idx == entNull || ve.idx == entNull {
			continue // an empty or null map, or a null value
		}
		if m.field == mProduct && !m.wanted(ke, pr.plain) {
			continue
		}
		buf = appendEnt(appendEnt(buf, ke, pr.plain), ve, pr.plain)
	}
	return endRecord(buf, at), nil
}

// dictRecord appends a record for a map row read through rowDict: dictionary indexes of keys and
// values, all present.
func (pr *pqRow) dictRecord(m *pqMap, kidx, vidx []int32, buf []byte) ([]byte, error) {
	if len(kidx) != len(vidx) {
		return nil, pr.damaged(m.value, errPage)
	}
	buf, at := beginRecord(buf, byte(m.field))
	buf = binary.AppendUvarint(binary.AppendUvarint(buf, m.key.cur.Gen), m.value.cur.Gen)
	product := m.field == mProduct
	if product && m.wantGen != m.key.cur.Gen {
		m.wantGen, m.want = m.key.cur.Gen, append(m.want[:0], make([]int8, m.key.cur.ChunkDict.Len())...)
	}
	for i, kx := range kidx {
		if product && (m.want[kx] < 0 || m.want[kx] == 0 && !m.wanted(ent{idx: kx}, nil)) {
			continue
		}
		buf = binary.LittleEndian.AppendUint32(append(buf, 1), uint32(kx))
		buf = binary.LittleEndian.AppendUint32(append(buf, 1), uint32(vidx[i]))
	}
	return endRecord(buf, at), nil
}

// wanted reports whether a product map key is one the reader uses, remembering the answer for
// each dictionary index.
func (m *pqMap) wanted(e ent, arena []byte) bool {
	c := &m.key.cur
	if e.idx < 0 {
		return productKey(c.entBytesOf(e, arena))
	}
	if m.wantGen != c.Gen {
		m.wantGen, m.want = c.Gen, append(m.want[:0], make([]int8, c.ChunkDict.Len())...)
	}
	switch m.want[e.idx] {
	case 1:
		return true
	case -1:
		return false
	}
	ok := productKey(c.entBytesOf(e, arena))
	m.want[e.idx] = -1
	if ok {
		m.want[e.idx] = 1
	}
	return ok
}

// productKey reports whether a product attribute is one the reader maps.
func productKey(k []byte) bool { return string(k) == "product_name" || string(k) == "marketoption" }

// readTagCol appends the current value of flattened tag column i as a record, unless empty.
func (pr *pqRow) readTagCol(i int, l *pqLeaf, buf []byte) ([]byte, error) {
	present, err := l.cur.next()
	if err != nil {
		return nil, pr.damaged(l, err)
	}
	if !present {
		return buf, nil
	}
	if l.conv != cvText {
		v := pr.text(l)
		if len(v) == 0 {
			return buf, nil
		}
		buf, at := beginRecord(buf, encTagCol)
		buf = binary.AppendUvarint(binary.AppendUvarint(buf, uint64(i)), 0)
		buf = binary.AppendUvarint(append(buf, 2), uint64(len(v)))
		return endRecord(append(buf, v...), at), nil
	}
	if len(l.cur.bytesVal()) == 0 {
		return buf, nil
	}
	buf, at := beginRecord(buf, encTagCol)
	buf = binary.AppendUvarint(binary.AppendUvarint(buf, uint64(i)), l.cur.Gen)
	return endRecord(l.cur.appendHandle(buf), at), nil
}

// records calls fn for each record in buf.
func records(buf []byte, fn func(kind byte, body []byte) error) error {
	for len(buf) > 0 {
		if len(buf) < 5 {
			return errRecord
		}
		n := int(binary.LittleEndian.Uint32(buf[1:]))
		if n > len(buf)-5 {
			return errRecord
		}
		if err := fn(buf[0], buf[5:5+n]); err != nil {
			return err
		}
		buf = buf[5+n:]
	}
	return nil
}

// mapEntries decodes the key and value handles of a map record body.
func (pr *pqRow) mapEntries(f field, body []byte, fn func(k, v []byte)) error {
	var m *pqMap
	for _, mm := range pr.maps {
		if mm.field == f {
			m = mm
		}
	}
	if m == nil {
		return errRecord
	}
	for range 2 { // the generations
		if _, w := binary.Uvarint(body); w > 0 {
			body = body[w:]
		} else {
			return errRecord
		}
	}
	for len(body) > 0 {
		k, rest, ok1 := m.key.cur.resolve(body)
		v, rest, ok2 := m.value.cur.resolve(rest)
		if !ok1 || !ok2 {
			return errRecord
		}
		fn(k, v)
		body = rest
	}
	return nil
}

// resolveMaps sets row r's product name, market option and Tags from its records.
func (pr *pqRow) resolveMaps(r int) error {
	rd, b := pr.rd, pr.b
	if s := b.prod[r]; s[0] >= 0 {
		if err := pr.setProduct(b.arena[s[0]:s[1]]); err != nil {
			return pr.damagedRecord(err)
		}
	}
	tags := b.arena[b.tags[r][0]:b.tags[r][1]]
	l, err := rd.mc.tagSet(tags, func() (gpucost.Labels, error) { return pr.buildTags(tags) })
	if err != nil {
		return pr.damagedRecord(err)
	}
	rd.rec.tags = l
	return nil
}

func (pr *pqRow) damagedRecord(err error) error {
	return gpucost.Errorf(gpucost.EInvalid, "read AWS CUR %s: map columns: %v; the file is damaged, export or download it again", pr.where(-1), err)
}

// setProduct sets the product name and market option from a product record.
func (pr *pqRow) setProduct(rec []byte) error {
	rd, p := pr.rd, pr.rd.plan
	prod, ok := pr.lastProd, pr.hasProd && string(rec) == string(pr.lastProdKey)
	if !ok {
		prod, ok = rd.mc.products[string(rec)]
		pr.lastProdKey, pr.hasProd = append(pr.lastProdKey[:0], rec...), false
	}
	if !ok {
		err := records(rec, func(kind byte, body []byte) error {
			return pr.mapEntries(field(kind), body, func(k, v []byte) {
				switch string(k) {
				case "product_name":
					prod.name = rd.in.bytes(v)
				case "marketoption":
					prod.market = rd.in.bytes(v)
				}
			})
		})
		if err != nil {
			return err
		}
		if len(rd.mc.products) >= mapLimit {
			clear(rd.mc.products)
		}
		rd.mc.products[string(rec)] = prod
	}
	pr.lastProd, pr.hasProd = prod, true
	if p.index[fProductName] < 0 {
		rd.rec.str[fProductName] = prod.name
	}
	if p.index[fMarketOption] < 0 {
		rd.rec.str[fMarketOption] = prod.market
	}
	return nil
}

// buildTags decodes tag records into new Labels; nil when there are none. Resource tags come
// first, so they win over the same keys in the tags column.
func (pr *pqRow) buildTags(buf []byte) (gpucost.Labels, error) {
	rd := pr.rd
	l := gpucost.Labels{}
	add := func(k string, v []byte) {
		if _, dup := l[k]; !dup {
			l[k] = rd.in.bytes(v)
		}
	}
	for _, want := range [...]byte{byte(mResourceTags), byte(mTags), byte(mCostCategory), encTagCol} {
		err := records(buf, func(kind byte, body []byte) error {
			switch {
			case kind != want:
				return nil
			case kind == encTagCol:
				return pr.tagColEntry(body, add)
			}
			return pr.mapEntries(field(kind), body, func(k, v []byte) {
				key := string(k)
				if kind == byte(mCostCategory) {
					key = costCategoryKey(key)
				}
				add(key, v)
			})
		})
		if err != nil {
			return nil, err
		}
	}
	if len(l) == 0 {
		return nil, nil
	}
	return l, nil
}

// tagColEntry decodes a flattened tag column record.
func (pr *pqRow) tagColEntry(body []byte, add func(string, []byte)) error {
	col, w := binary.Uvarint(body)
	if w <= 0 || col >= uint64(len(pr.tagCols)) {
		return errRecord
	}
	body = body[w:]
	if _, w = binary.Uvarint(body); w <= 0 {
		return errRecord
	}
	v, _, ok := pr.tagCols[col].cur.resolve(body[w:])
	if !ok {
		return errRecord
	}
	add(pr.tagKeys[col], v)
	return nil
}
