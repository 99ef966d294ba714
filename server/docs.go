package server

// docsHTML is GET /docs: a self-contained page (inline CSS and JavaScript,
// no external script, style, font or image; the answer's
// Content-Security-Policy forbids any) that fetches openapi.json from the
// same server, relative to the page, and lists every route with its
// summary, description, request and response schemas (with $refs resolved
// against components.schemas, shown once per component). Unlike FastAPI's
// /docs it loads no Swagger UI from a CDN and cannot send requests: it is a
// reader.
const docsHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>API docs</title>
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1f24;background:#f6f8fa}
header{background:#24292f;color:#fff;padding:14px 24px}
header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#c9d1d9;font-size:13px}
main{max-width:1000px;margin:0 auto;padding:16px 24px}
details.op{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:8px 0}
details.op>summary{cursor:pointer;padding:8px 12px;list-style:none;display:flex;gap:12px;align-items:baseline}
.m{font:bold 12px monospace;text-transform:uppercase;color:#fff;border-radius:4px;padding:2px 8px;min-width:40px;text-align:center}
.m.post{background:#1f883d}.m.get{background:#0969da}
.p{font:14px monospace;font-weight:600}
.s{color:#57606a}
.body{padding:4px 16px 12px;border-top:1px solid #d0d7de}
h3{font-size:13px;margin:12px 0 4px;color:#57606a;text-transform:uppercase}
pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px;padding:8px;overflow:auto;font-size:12px;margin:0}
#err{color:#cf222e}
</style>
</head>
<body>
<header><h1 id="title">API docs</h1><p id="sub">Loading openapi.json ...</p></header>
<main><div id="err"></div><div id="ops"></div><h2>Schemas</h2><div id="schemas"></div></main>
<script>
(function(){
  "use strict";
  function el(tag, cls, text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!=null)e.textContent=text;return e;}
  function schemaOf(content){
    if(!content)return null;
    var c=content["application/json"];
    return c&&c.schema!==undefined?c.schema:null;
  }
  function show(label, schema, parent){
    if(schema==null)return;
    parent.appendChild(el("h3",null,label));
    var ref=schema.$ref;
    parent.appendChild(el("pre",null,ref?ref.replace("#/components/schemas/","")+" (see Schemas)":JSON.stringify(schema,null,2)));
  }
  fetch("openapi.json",{credentials:"same-origin"}).then(function(r){
    if(!r.ok)throw new Error("GET openapi.json: HTTP "+r.status);
    return r.json();
  }).then(function(doc){
    var info=doc.info||{};
    document.title=(info.title||"API")+" - docs";
    document.getElementById("title").textContent=info.title||"API";
    document.getElementById("sub").textContent="OpenAPI "+doc.openapi+", version "+(info.version||"")+" - openapi.json";
    var ops=document.getElementById("ops");
    Object.keys(doc.paths||{}).forEach(function(path){
      var item=doc.paths[path];
      Object.keys(item).forEach(function(method){
        var op=item[method];
        var d=el("details","op");
        var s=el("summary");
        s.appendChild(el("span","m "+method,method));
        s.appendChild(el("span","p",path));
        s.appendChild(el("span","s",op.summary||""));
        d.appendChild(s);
        var b=el("div","body");
        if(op.description)b.appendChild(el("p",null,op.description));
        (op.parameters||[]).forEach(function(p){b.appendChild(el("p",null,"Path parameter: "+p.name));});
        if(op.requestBody)show("Request body",schemaOf(op.requestBody.content),b);
        Object.keys(op.responses||{}).forEach(function(code){
          var res=op.responses[code];
          show(code+" "+(res.description||""),schemaOf(res.content),b);
        });
        d.appendChild(b);
        ops.appendChild(d);
      });
    });
    var schemas=(doc.components||{}).schemas||{};
    var box=document.getElementById("schemas");
    Object.keys(schemas).forEach(function(name){
      var d=el("details","op");d.id="schema-"+name;
      var s=el("summary");s.appendChild(el("span","p",name));
      if(schemas[name].description)s.appendChild(el("span","s",schemas[name].description));
      d.appendChild(s);
      var b=el("div","body");b.appendChild(el("pre",null,JSON.stringify(schemas[name],null,2)));
      d.appendChild(b);box.appendChild(d);
    });
  }).catch(function(e){document.getElementById("err").textContent=String(e);});
})();
</script>
</body>
</html>
`

func docsPage() []byte { return []byte(docsHTML) }
