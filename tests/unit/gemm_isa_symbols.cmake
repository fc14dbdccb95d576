# Fails when an object of one instruction set's GEMM copy (engine/array/gemm_isa.cpp) defines a
# global or weak symbol outside its own namespaces: such a symbol could be one symbol to the linker
# across the copies, and the linker would keep one copy's code for all callers (an AVX2 function
# on a CPU without AVX2). Usage: cmake -DNM=nm -DOBJECT=file.o -DISA=isa_v3 -P gemm_isa_symbols.cmake
execute_process(COMMAND ${NM} -C --defined-only ${OBJECT} OUTPUT_VARIABLE symbols
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${OBJECT}")
endif()
string(REPLACE "\n" ";" lines "${symbols}")
set(shared "")
set(own 0)
foreach(line IN LISTS lines)
  # "ADDRESS TYPE NAME": upper-case types are global; W, V, u and i are weak or unique.
  if(line MATCHES "^[0-9a-f]* ([A-Zuiv]) (.*)$")
    set(name "${CMAKE_MATCH_2}")
    # AddressSanitizer adds an ODR indicator per global, named after its mangled name.
    if(name MATCHES "PzEigen_${ISA}|pz::array::gemm::${ISA}::|^__odr_asan\\..*${ISA}")
      math(EXPR own "${own} + 1")
    elseif(NOT name STREQUAL "DW.ref.__gxx_personality_v0")
      string(APPEND shared "  ${line}\n")
    endif()
  endif()
endforeach()
if(shared)
  message(FATAL_ERROR "${OBJECT} defines symbols another copy could share:\n${shared}")
endif()
if(own EQUAL 0)
  message(FATAL_ERROR "${OBJECT} defines no symbol of ${ISA}: the check reads nothing")
endif()
message(STATUS "${ISA}: ${own} symbols, all in its own namespaces")
