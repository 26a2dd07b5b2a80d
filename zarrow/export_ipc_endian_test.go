package zarrow

import (
	"bytes"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/endian"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// On a big-endian host the IPC export's batches are swapped to
// little-endian: which schemas are, and each fixed-width value's bytes
// reversed at its index (a slice keeps its offset, so the validity bits
// still line up), bools and bytes as they were. The end-to-end check is
// TestApacheArrowReadsIPC on s390x (make test-s390x), where JavaScript
// reads the file.
func TestLittleEndianBatch(t *testing.T) {
	was := littleEndian
	littleEndian = false // as on s390x: what is swapped is tested here by its bytes
	defer func() { littleEndian = was }()

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fields := []arrow.Field{
		{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true}, {Name: "f32", Type: arrow.PrimitiveTypes.Float32},
		{Name: "ts", Type: arrow.FixedWidthTypes.Timestamp_us, Nullable: true}, {Name: "b", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "u8", Type: arrow.PrimitiveTypes.Uint8}, {Name: "h", Type: arrow.FixedWidthTypes.Float16},
	}
	schema := arrow.NewSchemaWithEndian(fields, nil, endian.BigEndian)
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i := range 40 {
		valid := i%5 != 2
		b.Field(0).(*array.Int16Builder).AppendValues([]int16{int16(i*1000 - 7)}, []bool{valid})
		b.Field(1).(*array.Float32Builder).Append(float32(i) / 3)
		b.Field(2).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{arrow.Timestamp(int64(i) << 40)}, []bool{valid})
		b.Field(3).(*array.BooleanBuilder).Append(i%3 == 0)
		b.Field(4).(*array.Uint8Builder).Append(uint8(i))
		b.Field(5).(*array.Float16Builder).Append(float16.New(float32(i)))
	}
	full := b.NewRecordBatch()
	defer full.Release()
	rec := full.NewSlice(3, 37)
	defer rec.Release()

	le, swap := ipcSchema(schema)
	if !swap || le.Endianness() != endian.LittleEndian || !slices.EqualFunc(le.Fields(), fields, func(a, b arrow.Field) bool { return a.Equal(b) }) {
		t.Fatalf("ipcSchema: %v, swap %v", le, swap)
	}
	if _, swap := ipcSchema(arrow.NewSchemaWithEndian(append(fields[:1:1], arrow.Field{Name: "s", Type: arrow.BinaryTypes.String}), nil, endian.BigEndian)); swap {
		t.Error("a table with a string column is swapped")
	}
	out := littleEndianBatch(rec, le, mem)
	defer out.Release()
	if !out.Schema().Equal(le) || out.NumRows() != rec.NumRows() {
		t.Fatalf("swapped batch: %v, %d rows", out.Schema(), out.NumRows())
	}
	for c := range fields {
		in, got := rec.Column(c).Data(), out.Column(c).Data()
		if got.Offset() != in.Offset() || got.NullN() != in.NullN() || got.Len() != in.Len() {
			t.Fatalf("%s: offset %d, %d nulls, %d long; want %d, %d, %d", fields[c].Name, got.Offset(), got.NullN(), got.Len(), in.Offset(), in.NullN(), in.Len())
		}
		for i := range in.Len() {
			if rec.Column(c).IsValid(i) != out.Column(c).IsValid(i) {
				t.Fatalf("%s row %d: validity differs", fields[c].Name, i)
			}
		}
		w, _ := swapWidth(fields[c].Type)
		if w == 0 {
			if !array.Equal(rec.Column(c), out.Column(c)) {
				t.Fatalf("%s: bools changed", fields[c].Name)
			}
			continue
		}
		src, dst := in.Buffers()[1].Bytes(), got.Buffers()[1].Bytes()
		for i := in.Offset(); i < in.Offset()+in.Len(); i++ {
			want := slices.Clone(src[i*w : (i+1)*w])
			if w > 1 {
				slices.Reverse(want)
			}
			if !bytes.Equal(dst[i*w:(i+1)*w], want) {
				t.Fatalf("%s value %d: bytes %x, want %x", fields[c].Name, i, dst[i*w:(i+1)*w], want)
			}
		}
	}
}
