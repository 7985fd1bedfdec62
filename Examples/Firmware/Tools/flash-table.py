#!/usr/bin/env python3
# The flash table of Examples/Firmware/README.md: every symbol of the linked image in flash
# (code, constants, type metadata) and the initial values of .data, summed by owner (the
# Swift module named in its mangled name, the standard library split into String and the
# rest, the C library), with the largest of each; then the string literal sections by object
# from the linker map (ld.lld's); last, the Swift program (the core and the example): the
# whole image less the C library, the start-up and their strings. Needs
# arm-none-eabi-nm and the toolchain's swift-demangle.
#
#   python3 Examples/Firmware/Tools/flash-table.py .build/firmware/arm/firmware.elf .build/firmware/arm/firmware.map
import subprocess,re,collections,sys
elf=sys.argv[1]; mapf=sys.argv[2]
nm=subprocess.run(['arm-none-eabi-nm','-S',elf],capture_output=True,text=True).stdout.splitlines()
rows=[]
for l in nm:
    p=l.split()
    if len(p)!=4: continue
    a=int(p[0],16); s=int(p[1],16)
    if s==0: continue
    flash = a < 0x400000
    if not flash and p[2] not in 'dD': continue
    rows.append((a&~1,s,p[2],p[3]))
# dedupe aliases
seen={}
for a,s,t,n in rows:
    if (a,s) not in seen or len(n)>len(seen[(a,s)][1]): seen[(a,s)]=(t,n)
items=[(a,s,t,n) for (a,s),(t,n) in seen.items()]
dm=subprocess.run(['swift-demangle','--simplified'],input='\n'.join(n for *_,n in items),capture_output=True,text=True).stdout.splitlines()
cat=collections.Counter(); top=collections.defaultdict(list)
strpat=re.compile(r'String|Substring|Unicode|UTF8|UTF16|Character|_StringGuts|_StringObject|_BinaryIntegerToASCII|_description\(radix|DefaultStringInterpolation|repairUTF8|_SmallString|_StringBreadcrumbs|validateUTF8')
for (a,s,t,n),d in zip(items,dm):
    data = t in 'rRdD' or 'read-only object' in d or d.startswith('type metadata') or 'metadata' in d[:40]
    m=re.match(r'\$e(\d+)',n)
    if n.startswith('$e'):
        if m:
            k=int(m.group(1)); mod=n[2+len(m.group(1)):2+len(m.group(1))+k]
        else: mod='stdlib'
        if mod=='stdlib' or mod=='Swift':
            mod='stdlib: String and Unicode' if strpat.search(d) else 'stdlib: other (Array, integers, ...)'
    elif n.startswith('swift_') or n.startswith('_swift'): mod='Swift runtime'
    elif n.startswith('OUTLINED_FUNCTION'): mod='machine-outlined sequences'
    elif n in ('board_open_input','board_read_input','board_write','board_mark','board_stack_peak','board_heap_peak','board_heap_restart_peak','board_heap_in_use','board_heap_allocations','main','paint_stack','heap_count') or n.startswith('__wrap_'): mod='board.c'
    elif n.startswith('firmware_main'): mod='Firmware'
    else: mod='C library and libgcc'
    kind='constants' if data else 'code'
    cat[(mod,kind)]+=s; top[(mod,kind)].append((s,d))
total=sum(cat.values())
sz=subprocess.run(['arm-none-eabi-size','-A',elf],capture_output=True,text=True).stdout
flash=sum(int(l.split()[1]) for l in sz.splitlines() if l.split() and l.split()[0] in ('.init','.text','.data','.tdata'))
print('flash',flash,'symbols',total,'other (string literals, padding)',flash-total)
mods=collections.Counter()
for (m,k),v in cat.items(): mods[m]+=v
for m,v in mods.most_common():
    print(f'{v:7d} {m}: code {cat[(m,"code")]}, constants {cat[(m,"constants")]}')
    big=sorted(top[(m,'code')]+top[(m,'constants')],reverse=True)[:6]
    print('         ', '; '.join(f'{d[:70]} {s}' for s,d in big))
# string literals from the map (ld.lld's: one line per input section, `OBJECT:(SECTION)`), by
# the module their name carries (build.sh names them `.str.MODULE.N…`); the C objects'
# mergeable strings come merged, as `<internal>`
lit=collections.Counter()
for mm in re.finditer(r'^\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+(\S+?):\((\.rodata\.(?:str|\.L\.str)[^\n]*)\)$',
                      open(mapf).read(), re.M):
    if int(mm.group(1),16)>=0x400000: continue
    named=re.match(r'\.rodata\.\.L\.str\.([A-Za-z]\w*)\.',mm.group(4))
    lit[named.group(1)+'.o' if named else mm.group(3).split('/')[-1]]+=int(mm.group(2),16)
print('string literal sections by object', lit.most_common(8))
# The link optimises the program as one (build.sh: -flto, --lto-O2), and merges core code
# that has one caller into the example's functions, so symbols cannot split the core from the
# example: what is told apart is the C library, the start-up and board.c (symbols and strings), and the
# rest is the Swift program, the core with the example's own code.
swift_program=flash-mods['C library and libgcc']-mods['board.c']-lit['<internal>']-sum(v for o,v in lit.items() if not o.startswith('Pare') and o!='Firmware.o' and o!='<internal>')
print('swift',swift_program,'(the Swift program: the JPEG + EXIF core and the example, flash less the C library, the start-up, board.c and their strings)')
