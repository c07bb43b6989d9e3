// TileIR as a program: the operations of a `tileirdisasm -g` listing as a
// tree of regions, each operation with its results and operands resolved to
// SSA values, its attributes and its source location (the call sites it was
// inlined through included). The scalar evaluator (model/skeleton.h)
// runs it; parse_tileir (tileir.h) builds it in the same pass that counts
// the operations.
//
// Names are scoped as the listing prints them: a region sees the values of
// the regions around it, and sibling regions reuse names ("%21" in two
// loop bodies are two values). A multi-result operation's "%for:3" defines
// %for#0..%for#2; "%a, %b = op" defines both.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tileperf {

// Bounds of a listing, each a located error past it (docs/design/
// hostile-inputs.md): regions open at once (the entry's included), results
// one line declares ("%for:3" declares three), operations and values in
// all, and call sites a location is inlined through.
inline constexpr int kMaxTileIrNesting = 64;
inline constexpr int kMaxTileIrResults = 1024;
inline constexpr std::size_t kMaxTileIrOperations = std::size_t(1) << 18;
inline constexpr std::size_t kMaxTileIrValues = std::size_t(1) << 20;
inline constexpr std::size_t kMaxTileIrCallSites = 32;

// The element type of a 0-d tile (a scalar), or what else a value is.
enum class IrType : std::uint8_t {
  kOther,  // a tile with a shape, a pointer, a token, a view
  kI1,
  kI8,
  kI16,
  kI32,
  kI64,
  kF16,
  kBF16,
  kF32,
  kF64,
  kTensorView,
  kPartitionView,
};

bool is_integer(IrType t);
bool is_float(IrType t);
int integer_bits(IrType t);  // 1..64 for an integer type, 0 otherwise

// "tile<i32>" -> kI32, "tile<128xi32>" -> kOther, "tensor_view<...>" -> kTensorView.
IrType ir_type(std::string_view type);

struct IrLocation {
  std::string file;
  int line = 0, column = 0;
  // The call sites the operation was inlined through, innermost first, as
  // the line table names them (file, line).
  std::vector<std::pair<std::string, int>> calls;
  bool known() const { return line > 0; }
};

struct IrValue {
  std::string name;  // as printed: "%12", "%for#1", "%arg3"
  IrType type = IrType::kOther;
  int op = -1;             // the operation that defines it; -1 for an argument (of the entry or a region)
  bool undefined = false;  // used but never defined in the listing
};

struct IrRegion {
  std::vector<int> arguments;  // values
  std::vector<int> ops;        // operations, in order
};

// A dimension of a tensor view's shape or strides: a value, or a number
// printed in place ("strides = [%s, 1]").
struct IrDim {
  int value = -1;
  std::int64_t constant = 0;
};

struct IrOp {
  std::string name;  // "addi", "for", "load_view_tko", ...
  std::vector<int> results;
  // Operands in the order printed. `for`: lower bound, upper bound, step,
  // then the initial values of its iter_values; `loop`: the initial values.
  std::vector<int> operands;
  std::vector<IrRegion> regions;  // for, loop: the body; if: then, else; reduce, scan: the combiner
  std::string attributes;         // the words between the name and the operands' types: "less_than", "signed", ...
  std::string literal;            // constant: the "<i32: 5>" part
  // A constant of a scalar type: its value as written (tileir_literals.h),
  // an integer before it is wrapped to its type, a float before it is
  // rounded to it.
  bool has_value = false;
  std::int64_t int_value = 0;
  double float_value = 0;
  // make_tensor_view: its shape and strides; make_partition_view: the tile
  // shape and the view dimension of each tile dimension (dim_map).
  std::vector<IrDim> shape, strides;
  std::vector<std::int64_t> tile, dim_map;
  bool unsigned_compare = false;  // for: the bound compared unsigned
  int location = -1;              // index into TileIrProgram::locations
  int listing_line = 0;           // line of the listing the operation starts at
  int memory = -1;                // index into TileIrStats::memory for a tile load or store
};

struct TileIrProgram {
  std::string file;   // the listing's name, for errors
  std::string entry;  // the kernel's symbol
  std::vector<IrValue> values;
  std::vector<IrOp> ops;
  std::vector<IrLocation> locations;
  IrRegion body;  // the entry's region: its arguments are the kernel's flattened parameters

  const IrLocation* location_of(const IrOp& op) const {
    return op.location >= 0 ? &locations[static_cast<std::size_t>(op.location)] : nullptr;
  }
  // "attention.py:70" (the file name without its folder), "listing line 12"
  // when the operation has no location.
  std::string where(const IrOp& op) const;
};

// Builds a TileIrProgram from the lines of a listing, in order (parse_tileir
// calls it; the line's location suffix already stripped). Throws InputError
// at the line past a bound.
class TileIrProgramBuilder {
 public:
  explicit TileIrProgramBuilder(std::string file);

  void at_line(int lineno) { lineno_ = lineno; }  // the line read now, for errors

  void entry(std::string_view line, int lineno);
  // An operation line; `opens` when it ends in '{' (its first region).
  // Returns the operation's index.
  int operation(std::string_view results, std::string_view name, std::string_view rest, int lineno,
                const std::string& loc, bool opens);
  // "(%a: tile<f32>, %b: tile<f32>) {": the first region of the last
  // operation (reduce, scan), with these arguments.
  void block_arguments(std::string_view line);
  void else_region();                  // "} else {"
  void close(const std::string& loc);  // "}": the region ends; the location of its operation
  void set_memory(int op, int memory) { p_.ops[static_cast<std::size_t>(op)].memory = memory; }
  // "#locN = ..." definitions, then each operation's location resolved.
  void location_definition(const std::string& name, const std::string& text, int lineno);
  TileIrProgram finish();

 private:
  [[noreturn]] void fail(int lineno, const std::string& what) const;
  int define(const std::string& name, IrType type, int op, bool in_scope = true);
  int new_value(std::string name, IrType type, int op, bool undefined);
  IrLocation resolve(const std::string& ref, int depth);
  int use(std::string_view name);
  void open_region(int op, std::vector<int> arguments);
  // "iter_values(%a = %x, ...)" of a for or loop: the initial values as the
  // operation's operands, the carried values as its region's arguments.
  void iter_values(std::string_view text, const std::vector<IrType>& types, IrOp& op, std::vector<int>& arguments);
  std::vector<int> define_results(std::string_view results, const std::vector<IrType>& types, int op);
  void read_constant(IrType type, IrOp& op) const;  // a scalar constant's value, or an error
  // The parts of an operation's line after its name, by kind: each reads
  // what its operations hold there into `op`, its results' types into
  // `types`, and returns the text of its plain operands.
  std::string_view for_header(std::string_view rest, IrOp& op, std::vector<IrType>& types,
                              std::vector<int>& region_arguments);
  std::string_view signature(std::string_view rest, IrOp& op, std::vector<IrType>& types);
  std::string_view tensor_view_dims(std::string_view operands_text, IrOp& op);  // shape = [...], strides = [...]
  // The operands (%names) of `operands_text`, and the words between them
  // (the attributes).
  void operands(std::string_view operands_text, IrOp& op);

  TileIrProgram p_;
  struct Open {
    int op = -1;  // the operation whose region this is (-1: the entry)
    IrRegion region;
    std::vector<std::string> names;  // defined in this region, in order
  };
  Open close_region();  // the innermost region, its names out of scope
  std::vector<Open> open_;
  // The values each name stands for in the open regions, the latest last.
  std::unordered_map<std::string, std::vector<int>> visible_;
  int last_op_ = -1;
  int lineno_ = 0;                                    // of the line being read
  std::vector<std::pair<int, std::string>> op_locs_;  // operation, location name
  struct LocationDefinition {
    std::string text;
    int lineno = 0;
  };
  std::unordered_map<std::string, LocationDefinition> loc_defs_;
  std::unordered_map<std::string, IrLocation> resolved_;  // each name once: a chain of call sites is linear
};

}  // namespace tileperf
