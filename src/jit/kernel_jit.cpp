#include "jit/kernel_jit.hpp"

#include <dlfcn.h>

#include <mutex>
#include <stdexcept>

#include "jit/llvm_headers.hpp"
#include <llvm/Support/DynamicLibrary.h>

namespace shard::jit {

namespace {

std::string take_message(llvm::Error err) {
  std::string msg;
  llvm::handleAllErrors(std::move(err), [&](const llvm::ErrorInfoBase& e) { msg += e.message(); });
  return msg;
}

template <class T>
T check(llvm::Expected<T> v, const char* what) {
  if (!v) throw std::runtime_error(std::string(what) + ": " + take_message(v.takeError()));
  return std::move(*v);
}

void init_llvm_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    // Vector math (sin/exp/... over 16 lanes) comes from glibc's libmvec; load it globally so
    // the process symbol search below resolves the vectoriser's _ZGV* calls. Absent libmvec
    // only costs speed: KernelJit then turns vector_math off.
    llvm::sys::DynamicLibrary::LoadLibraryPermanently("libmvec.so.1");
  });
}

// The vector forms of the scalar libm functions in `fns` (name, arity) that glibc ships: 8
// floats / 4 doubles per call (AVX2), or 4 / 2 (SSE). VecDesc keeps StringRefs: the strings
// live in `names`, which must outlive `tlii`'s use.
void add_glibc_vector_math(llvm::TargetLibraryInfoImpl& tlii, const std::vector<std::pair<std::string, int>>& fns,
                           std::vector<std::string>& names) {
  struct Width {
    char isa;
    unsigned lanes;
    bool f32;
  };
  std::vector<llvm::VecDesc> descs;
  names.clear();
  names.reserve(fns.size() * 4 * 3);  // no reallocation: descs point into it
  for (const auto& [name, arity] : fns)
    for (Width w : {Width{'d', 8, true}, Width{'b', 4, true}, Width{'d', 4, false}, Width{'b', 2, false}}) {
      const std::string params(static_cast<size_t>(arity), 'v');
      const std::string scalar = name + (w.f32 ? "f" : "");
      names.push_back(scalar);
      names.push_back("_ZGV" + std::string(1, w.isa) + "N" + std::to_string(w.lanes) + params + "_" + scalar);
      names.push_back("_ZGV_LLVM_N" + std::to_string(w.lanes) + params);
      const size_t k = names.size();
      descs.emplace_back(names[k - 3], names[k - 2], llvm::ElementCount::getFixed(w.lanes), false, names[k - 1]);
    }
  tlii.addVectorizableFunctions(descs);
}

}  // namespace

struct ModuleHandle::Parts {
  std::unique_ptr<llvm::LLVMContext> ctx;
  std::unique_ptr<llvm::Module> mod;
};

ModuleHandle::ModuleHandle(const std::string& name) : parts(std::make_unique<Parts>()) {
  parts->ctx = std::make_unique<llvm::LLVMContext>();
  parts->mod = std::make_unique<llvm::Module>(name, *parts->ctx);
}
ModuleHandle::~ModuleHandle() = default;
ModuleHandle::ModuleHandle(ModuleHandle&&) noexcept = default;
llvm::Module& ModuleHandle::module() { return *parts->mod; }
llvm::LLVMContext& ModuleHandle::context() { return *parts->ctx; }

struct KernelJit::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unique_ptr<llvm::TargetMachine> tm;
  std::string cpu;
};

KernelJit::KernelJit(JitOptions opts) : opts_(opts), impl_(std::make_unique<Impl>()) {
  init_llvm_once();
  auto jtmb = check(llvm::orc::JITTargetMachineBuilder::detectHost(), "detecting the host CPU");
  jtmb.setCodeGenOptLevel(opts_.opt_level >= 3 ? llvm::CodeGenOptLevel::Aggressive
                                               : llvm::CodeGenOptLevel::Default);
  impl_->cpu = jtmb.getCPU();
  impl_->tm = check(jtmb.createTargetMachine(), "creating the target machine");
  impl_->jit = check(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create(),
                     "creating the LLVM JIT");
  // libm/libmvec symbols (sinf, _ZGVeN16v_sinf, ...) resolve from the process: the binary
  // links libmvec so the vectoriser's calls have a definition.
  auto gen = check(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                       impl_->jit->getDataLayout().getGlobalPrefix()),
                   "opening the process for symbol lookup");
  impl_->jit->getMainJITDylib().addGenerator(std::move(gen));
}

KernelJit::~KernelJit() = default;

std::string KernelJit::host_cpu() const { return impl_->cpu; }

void KernelJit::define_symbol(const std::string& name, void* address) {
  auto& jd = impl_->jit->getMainJITDylib();
  llvm::orc::SymbolMap syms;
  syms[impl_->jit->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                             llvm::JITSymbolFlags::Exported};
  if (auto err = jd.define(llvm::orc::absoluteSymbols(std::move(syms))))
    throw std::runtime_error("defining runtime symbol " + name + ": " + take_message(std::move(err)));
}

void KernelJit::add_vector_math(const std::string& name, int arity) {
  for (const auto& f : vector_math_)
    if (f.first == name) return;
  vector_math_.emplace_back(name, arity);
}

void KernelJit::add(ModuleHandle&& mh, std::string* optimised_ir) {
  llvm::Module& m = mh.module();
  m.setDataLayout(impl_->jit->getDataLayout());
  m.setTargetTriple(impl_->tm->getTargetTriple().str());
  std::string verify_msg;
  llvm::raw_string_ostream vos(verify_msg);
  if (llvm::verifyModule(m, &vos)) throw std::runtime_error("internal error: invalid LLVM IR: " + vos.str());

  // The new pass manager's default per-module pipeline, with the host's cost model and
  // (optionally) libmvec so vectorised loops call vector sin/exp instead of scalar libm.
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  // Off: LLVM 19.1.7's SLP vectorizer miscompiles fully unrolled small broadcast kernels
  // (i32 a[1,1,6,1] * b[1,2,1,3] stored poison lanes: its shuffles left lanes undefined).
  // Our kernels are loops; the loop vectorizer does their vector work. Regression golden:
  // tests/golden/jnp/small_broadcast_int.
  pto.SLPVectorization = false;
  llvm::PassBuilder pb(impl_->tm.get(), pto);
  llvm::Triple triple(m.getTargetTriple());
  auto tlii = std::make_unique<llvm::TargetLibraryInfoImpl>(triple);
  std::vector<std::string> vector_names;
  if (opts_.vector_math) {
    tlii->addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, triple);
    add_glibc_vector_math(*tlii, vector_math_, vector_names);
  }
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(*tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = opts_.opt_level <= 0   ? llvm::OptimizationLevel::O0
                                  : opts_.opt_level == 1 ? llvm::OptimizationLevel::O1
                                  : opts_.opt_level == 2 ? llvm::OptimizationLevel::O2
                                                         : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = level == llvm::OptimizationLevel::O0
                                    ? pb.buildO0DefaultPipeline(level)
                                    : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(m, mam);

  if (optimised_ir) {  // --emit=llvm / --dump-llvm print it (exec/stage_output)
    optimised_ir->clear();
    llvm::raw_string_ostream os(*optimised_ir);
    m.print(os, nullptr);
    os.flush();
  }
  llvm::orc::ThreadSafeModule tsm(std::move(mh.parts->mod), std::move(mh.parts->ctx));
  if (auto err = impl_->jit->addIRModule(std::move(tsm)))
    throw std::runtime_error("adding a module to the JIT: " + take_message(std::move(err)));
}

void* KernelJit::lookup(const std::string& name) {
  auto addr = check(impl_->jit->lookup(name), "looking up a compiled kernel");
  return addr.toPtr<void*>();
}

}  // namespace shard::jit
