/// Writes the self-contained HTML page of `pare explain`: text escaped (HTML Living Standard
/// §13.1.2), pictures as `data:` URIs, the style sheet and script inline, so the page opens
/// from disk with no network access.
struct HTMLWriter {
    private(set) var text = ""

    /// The five characters that can end an element, an attribute or an entity, and their
    /// references (HTML Living Standard §13.1.2).
    static let references: [Unicode.Scalar: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"]

    /// Text with those five characters replaced by their references, and control characters
    /// other than line feed and tab (which a page may not hold) by U+FFFD.
    static func escape(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        TextEscaping.append(value, to: &out, replacing: references) { scalar in
            scalar.value < 0x20 && scalar != "\n" && scalar != "\t" ? "\u{FFFD}" : nil
        }
        return out
    }

    /// Markup written as is: only for literals and output of this type.
    mutating func raw(_ markup: String) { text += markup }

    /// Escaped text.
    mutating func text(_ value: String) { text += Self.escape(value) }

    /// `<tag attributes>` with each attribute value escaped.
    mutating func open(_ tag: String, _ attributes: [(String, String)] = []) {
        text += "<" + tag
        for (name, value) in attributes { text += " \(name)=\"\(Self.escape(value))\"" }
        text += ">"
    }

    mutating func close(_ tag: String) { text += "</\(tag)>" }

    /// An element holding escaped text.
    mutating func element(_ tag: String, _ attributes: [(String, String)] = [], _ content: String) {
        open(tag, attributes)
        text(content)
        close(tag)
    }

    /// A section of the page: `<section id>` with its heading and a paragraph that says
    /// what the reader is looking at.
    mutating func section(_ id: String, _ title: String, intro: String, body: (inout HTMLWriter) -> Void) {
        open("section", [("id", id)])
        element("h2", [], title)
        if !intro.isEmpty { element("p", [("class", "intro")], intro) }
        body(&self)
        close("section")
    }

    /// A table of rows of cells, the first row as headings.
    mutating func table(_ header: [String], _ rows: [[String]], class className: String = "facts") {
        open("table", [("class", className)])
        if !header.isEmpty {
            open("tr")
            for cell in header { element("th", [], cell) }
            close("tr")
        }
        for row in rows {
            open("tr")
            for cell in row { element("td", [], cell) }
            close("tr")
        }
        close("table")
    }

    /// Two-column facts: name, value.
    mutating func facts(_ rows: [(String, String)]) {
        open("table", [("class", "facts")])
        for (name, value) in rows {
            open("tr")
            element("th", [], name)
            element("td", [], value)
            close("tr")
        }
        close("table")
    }

    /// A picture with a caption under it.
    mutating func figure(_ picture: ExplainPicture?, caption: String, attributes: [(String, String)] = []) {
        open("figure", attributes)
        if let picture {
            open("img", [("src", picture.dataURI), ("width", "\(picture.displayWidth)"),
                         ("height", "\(picture.displayHeight)"), ("alt", caption)] + (picture.pixelated ? [("class", "px")] : []))
        } else {
            element("div", [("class", "missing")], "no picture")
        }
        element("figcaption", [("style", "max-width:\(max(picture?.displayWidth ?? 120, 150))px")], caption)
        close("figure")
    }

    /// The whole page around `body`.
    static func page(title: String, body: String) -> String {
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            + "<title>\(escape(title))</title><style>\(style)</style></head><body>\n"
            + body + "\n<script>\(script)</script></body></html>\n"
    }

    static let style = """
        :root{--ink:#1d2330;--muted:#5b6475;--line:#d9dee7;--bg:#fbfbfd;--accent:#2f6fd6;--bad:#c62828}
        *{box-sizing:border-box}
        body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
        header{padding:20px 32px 12px;background:#fff;border-bottom:1px solid var(--line)}
        header h1{margin:0;font-size:22px}
        header p{margin:4px 0 0;color:var(--muted)}
        nav{position:sticky;top:0;z-index:5;background:#fff;border-bottom:1px solid var(--line);padding:6px 32px}
        nav a{margin-right:14px;color:var(--accent);text-decoration:none;font-weight:600;font-size:14px}
        main{max-width:1180px;margin:0 auto;padding:8px 32px 48px}
        section{margin:26px 0;padding:18px 22px;background:#fff;border:1px solid var(--line);border-radius:8px}
        h2{margin:0 0 6px;font-size:19px}
        h3{margin:18px 0 6px;font-size:15px}
        p.intro{margin:0 0 12px;color:var(--muted);max-width:900px}
        table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
        th,td{border:1px solid var(--line);padding:2px 8px;text-align:left;vertical-align:top}
        th{background:#f2f4f8;font-weight:600}
        table.scans td{white-space:nowrap}
        td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
        code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
        figure{display:inline-block;margin:6px 14px 10px 0;vertical-align:top}
        figcaption{font-size:12.5px;color:var(--muted);max-width:420px}
        img{display:block;border:1px solid var(--line);background:repeating-conic-gradient(#eee 0 25%,#fff 0 50%) 0 0/16px 16px}
        img.px{image-rendering:pixelated}
        .missing{width:120px;height:80px;border:1px dashed var(--line);color:var(--muted);display:flex;align-items:center;justify-content:center;font-size:12px}
        .bar{position:relative;display:flex;height:46px;border:1px solid var(--line);border-radius:4px;overflow:hidden;background:#f3f3f3}
        .bar a{display:block;min-width:3px;border-right:1px solid rgba(255,255,255,.8);color:#fff;font-size:11px;line-height:46px;overflow:hidden;white-space:nowrap;text-overflow:clip;padding-left:2px;text-decoration:none}
        .bar a:hover{filter:brightness(1.15);outline:2px solid var(--ink);outline-offset:-2px}
        .bar .err{position:absolute;top:-2px;bottom:-2px;width:3px;background:var(--bad);box-shadow:0 0 0 2px #fff}
        #byteinfo{min-height:22px;margin:6px 0;font-size:13px}
        .legend span{display:inline-block;margin:4px 12px 0 0;font-size:12.5px}
        .legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px;border-radius:2px}
        .k-marker{background:#7b8494}.k-table{background:#2f6fd6}.k-frame{background:#8e44ad}.k-scan{background:#e08a1e}
        .k-data{background:#d35400}.k-app{background:#16a085}.k-meta{background:#27ae60}.k-trail{background:#95a5a6}
        .k-chunk{background:#2f6fd6}.k-idat{background:#d35400}.k-bad{background:#c62828}.k-text{background:#16a085}
        .error{border-color:var(--bad)} .error h2{color:var(--bad)}
        .grid8{display:inline-grid;grid-template-columns:repeat(8,30px);gap:1px;margin:4px 16px 8px 0;vertical-align:top}
        .grid8 div{height:24px;font-size:10.5px;display:flex;align-items:center;justify-content:center;font-variant-numeric:tabular-nums}
        .gridbox{display:inline-block;vertical-align:top;margin-right:18px}
        .hist{display:flex;align-items:flex-end;height:90px;gap:2px;margin:4px 0 2px}
        .hist div{width:16px;background:var(--accent);position:relative}
        .hist div span{position:absolute;top:-15px;left:0;right:0;text-align:center;font-size:10px;color:var(--muted)}
        .histaxis{display:flex;gap:2px;font-size:10px;color:var(--muted)} .histaxis span{width:16px;text-align:center}
        .zz{display:inline-grid;grid-template-columns:repeat(64,9px);gap:1px;vertical-align:middle}
        .zz i{height:14px;background:#e8ebf1} .zz i.on{background:#e08a1e} .zz i.ref{background:#2f6fd6}
        .mcu{display:inline-flex;gap:18px;align-items:flex-end;margin:8px 0}
        .mcu .comp{text-align:center;font-size:12px;color:var(--muted)}
        .mcu .blocks{display:inline-grid;gap:2px}
        .mcu .blocks div{width:34px;height:34px;border:1px solid rgba(0,0,0,.25)}
        .strip{display:flex;gap:10px;align-items:flex-start}
        .rows{display:flex;flex-direction:column;width:14px;border:1px solid var(--line)}
        .f0{background:#bdc3c7}.f1{background:#3498db}.f2{background:#2ecc71}.f3{background:#f1c40f}.f4{background:#e74c3c}
        .swatches{display:flex;flex-wrap:wrap;gap:2px;max-width:640px}
        .swatches div{width:18px;height:18px;border:1px solid rgba(0,0,0,.2);font-size:8px}
        .pickable{cursor:crosshair;position:relative;display:inline-block}
        .pickable .mark{position:absolute;border:2px solid #ff2d55;pointer-events:none}
        .tree ul{margin:2px 0 2px 18px;padding:0}
        .arrow{font-size:44px;line-height:1;display:inline-block;width:60px;text-align:center}
        .small{font-size:12.5px;color:var(--muted)}
        details summary{cursor:pointer;color:var(--accent);font-weight:600}
        """

    /// Hovering a part of a byte map shows its facts in the line under the bar; clicking a
    /// block of a pickable picture shows that block's coefficients and samples; images that
    /// fail to decode, and script errors, are written into the page where a test can see them.
    static let script = """
        (function(){
        var errors=[];
        window.addEventListener('error',function(e){errors.push(String(e.message));});
        document.querySelectorAll('.bar a').forEach(function(a){
          a.addEventListener('mouseenter',function(){var info=document.getElementById('byteinfo');if(info)info.textContent=a.getAttribute('data-info');});
        });
        function cellColor(v,max){var t=max>0?Math.min(1,Math.abs(v)/max):0;
          return v<0?'rgba(47,111,214,'+t.toFixed(2)+')':'rgba(224,138,30,'+t.toFixed(2)+')';}
        function grid(title,values,max,gray){var h='<div class="gridbox"><div class="small">'+title+'</div><div class="grid8">';
          for(var i=0;i<64;i++){var v=values[i];var bg=gray?'rgb('+v+','+v+','+v+')':cellColor(v,max);var fg=gray&&v<110?'#fff':'#111';
            h+='<div style="background:'+bg+';color:'+fg+'">'+v+'</div>';}
          return h+'</div></div>';}
        var zz=[0,1,8,16,9,2,3,10,17,24,32,25,18,11,4,5,12,19,26,33,40,48,41,34,27,20,13,6,7,14,21,28,35,42,49,56,57,50,43,36,29,22,15,23,30,37,44,51,58,59,52,45,38,31,39,46,53,60,61,54,47,55,62,63];
        window.pareShowBlock=function(target,b){
          var q=b.q,c=b.c,zig=[],deq=[];var maxq=1,maxd=1;
          for(var k=0;k<64;k++){zig.push(c[zz[k]]);maxq=Math.max(maxq,Math.abs(c[zz[k]]));}
          for(var i=0;i<64;i++){deq.push(c[i]*q[i]);maxd=Math.max(maxd,Math.abs(c[i]*q[i]));}
          var h='<div class="small">'+b.label+'</div>';
          var last=63;while(last>0&&zig[last]===0)last--;
          h+='<div class="small">quantised coefficients in zig-zag order, as the entropy decoder produced them: <span class="mono">'+zig.slice(0,last+1).join(' ')+(last<63?' EOB (the other '+(63-last)+' are zero)':'')+'</span></div>';
          h+=grid('quantised (natural order)',c,maxq,false)+grid('dequantised = quantised × Q',deq,maxd,false)+grid('IDCT output (+128, clamped)',b.s,255,true);
          document.getElementById(target).innerHTML=h;};
        document.querySelectorAll('script[type="application/json"][data-blocks]').forEach(function(tag){
          var data=JSON.parse(tag.textContent);var holder=document.getElementById(tag.getAttribute('data-picture'));
          var target=tag.getAttribute('data-target');if(!holder)return;var img=holder.querySelector('img');
          var mark=document.createElement('div');mark.className='mark';holder.appendChild(mark);
          function show(bx,by){var key=by*data.wide+bx;var b=data.blocks[key];if(!b)return;
            var sx=img.width/data.wide,sy=img.height/data.high;
            mark.style.left=(bx*sx)+'px';mark.style.top=(by*sy)+'px';mark.style.width=Math.max(4,sx)+'px';mark.style.height=Math.max(4,sy)+'px';
            window.pareShowBlock(target,b);}
          holder.addEventListener('click',function(e){var r=img.getBoundingClientRect();
            show(Math.floor((e.clientX-r.left)/r.width*data.wide),Math.floor((e.clientY-r.top)/r.height*data.high));});
          show(data.first[0],data.first[1]);
        });
        document.querySelectorAll('[data-block]').forEach(function(el){window.pareShowBlock(el.id,JSON.parse(el.getAttribute('data-block')));});
        window.addEventListener('load',function(){
          var bad=0,count=0;document.querySelectorAll('img').forEach(function(i){count++;if(!(i.complete&&i.naturalWidth>0))bad++;});
          var r=document.createElement('div');r.id='selfcheck';r.style.display='none';
          r.setAttribute('data-images',String(count));r.setAttribute('data-broken-images',String(bad));
          r.setAttribute('data-errors',String(errors.length));r.setAttribute('data-height',String(Math.ceil(document.documentElement.scrollHeight)));r.textContent=errors.join('\\n');document.body.appendChild(r);
        });
        })();
        """
}

/// A picture ready for the page: its PNG as a data URI and the size to show it at.
struct ExplainPicture {
    var dataURI: String
    var displayWidth: Int
    var displayHeight: Int
    /// Small pictures enlarged without smoothing, so that blocks and pixels stay visible.
    var pixelated: Bool
    /// Bytes of the encoded PNG.
    var pngBytes: Int
}
