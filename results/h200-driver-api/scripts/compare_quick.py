# Compares two results files of scenarios/quick.yaml as data: every non-timing metric median, run by run.
# python3 results/h200-driver-api/scripts/compare_quick.py results/h200-main-answer/quick.json results/h200-driver-api/results.json
import json,sys
a=json.load(open(sys.argv[1]))
b=json.load(open(sys.argv[2]))
print("schema", a.get('schema_version'), b.get('schema_version'), "runs", len(a['runs']), len(b['runs']))
ra={r['id']:r for r in a['runs']}; rb={r['id']:r for r in b['runs']}
print("ids equal:", set(ra)==set(rb))
def med(m):
    if isinstance(m,dict):
        if 'median' in m: return m['median']
        if 'stats' in m: return m['stats'].get('median')
    return None
same=diff=0; rows=[]
for i in sorted(set(ra)&set(rb)):
    ma=ra[i].get('metrics',{}); mb=rb[i].get('metrics',{})
    for k in sorted(set(ma)&set(mb)):
        if k.startswith('time.') or 'ms' in k.split('.')[-1] or 'gbps' in k or 'seconds' in k: continue
        va,vb=med(ma[k]),med(mb[k])
        if va==vb: same+=1
        else: diff+=1; rows.append((i,k,va,vb))
print("byte-equal medians:",same,"different:",diff)
for r in rows: print("  ",*r)
